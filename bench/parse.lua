-- The bench's parse function: the smallest real one, each JSON line's table returned as the
-- event. Run with rules.lua, it shows what `parse` costs against rules.lua alone.
parse(function(event) return event end)
