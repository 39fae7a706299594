-- For the pipeline fuzz target: a rule that reads and writes back every field of every toast
-- (through pairs, so deep extra fields go to Lua and come back), and a hook that re-emits now
-- and then, so fuzzed input reaches every path of the Lua bridge. The second rule gets the same
-- table as the first (the rules of one toast share one): it writes, then fails or replaces the
-- toast now and then.
local seen = 0
rule("touch everything", function(t)
  for name, value in pairs(t) do
    if name ~= "type" and name ~= "at" then t[name] = value end
  end
end)
rule("write, then fail or replace", function(t)
  t.checked = #t.message
  if #t.message % 5 == 0 then t[1] = true end
  if #t.message % 7 == 0 then error("fails after writing") end
  if #t.message % 11 == 0 then return { message = t.message, checked = t.checked } end
end)
on("drop", function(t, info)
  seen = seen + 1
  if seen % 50 == 0 then emit(t) end
end)
