-- An application log with Java and Python stack traces: with --multiline each trace stays with
-- the line that logged it, one toast at the level of its first line, instead of a toast a line.
-- Run: Scripts/toastscript --input text --multiline --format json examples/app-traces.lua < examples/app-traces.log

-- Info lines are chatter here.
rule("chatter", { when = { level = "info" }, drop = "info chatter" })

-- Errors stay long enough to read their trace.
rule("long errors", { when = { role = "error" }, set = { duration = "long" } })
