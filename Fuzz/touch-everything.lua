-- For the pipeline fuzz target: a rule that reads and writes back every field of every toast
-- (through pairs, so deep extra fields go to Lua and come back), and a hook that re-emits now
-- and then, so fuzzed input reaches every path of the Lua bridge.
local seen = 0
rule("touch everything", function(t)
  for name, value in pairs(t) do
    if name ~= "type" and name ~= "at" then t[name] = value end
  end
end)
on("drop", function(t, info)
  seen = seen + 1
  if seen % 50 == 0 then emit(t) end
end)
