-- For the pipeline fuzz target: reads every field and extra field of a toast by name, which
-- the C view of the rules' toast answers once it holds them (extra fields searched in their
-- JSON text), and compares each with what pairs(t) shows (a copy Swift builds). A difference
-- raises "read differs", which the target treats as a finding. The first rules write a field
-- without changing it (extra fields stay as they came in), so the view is filled again after
-- each of them and holds the names from the second toast on.
for _ = 1, 8 do
  rule(function(t) t.placement = t.placement end)
end
local absent = { "level", "count", "a", "x", "subtitle", "source", "key" }
rule("read by name", function(t)
  local copy = {}
  for name, value in pairs(t) do copy[name] = value end
  for _, name in ipairs(absent) do
    if copy[name] == nil and t[name] ~= nil then error("read differs: " .. name .. " should be nil") end
  end
  for name, value in pairs(copy) do
    local read = t[name]
    if type(read) ~= type(value) or math.type(read) ~= math.type(value)
        or (type(read) ~= "table" and read ~= value) then
      error("read differs: " .. tostring(name) .. " " .. tostring(read) .. " " .. tostring(value))
    end
  end
end)
