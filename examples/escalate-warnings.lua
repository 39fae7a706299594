-- Escalate repeated warnings: the third warning from the same source within 90 s
-- of the stream clock becomes an error, so it is announced as one.
-- Run: Scripts/toastscript --format json examples/escalate-warnings.lua < examples/warnings.jsonl

local WINDOW, THRESHOLD = 90, 3
local recent = {}   -- source -> times of its recent warnings

rule("escalate repeated warnings", function(toast)
  if toast.role ~= "warning" then return end
  local key = toast.source or "?"
  local times, kept = recent[key] or {}, {}
  for _, at in ipairs(times) do
    if now() - at < WINDOW then kept[#kept + 1] = at end
  end
  kept[#kept + 1] = now()
  recent[key] = kept
  if #kept >= THRESHOLD then
    toast.role = "error"
    toast.subtitle = string.format("%d warnings in %d s", #kept, WINDOW)
  end
end)
