-- Quiet hours: from 22:00 to 07:00 (UTC) only errors get through; everything else is
-- dropped, with a note that says why in the record. A rate-limit summary ("2 more from
-- social") goes through the rules too (its toast.made_by says which stage made it), so quiet
-- hours silence it like any other toast.
-- `at` holds Unix times here; os.date("!%H", ...) reads the hour in UTC.
-- Run: Scripts/toastscript --format json examples/quiet-hours.lua < examples/quiet-hours.jsonl

local QUIET_FROM, QUIET_UNTIL = 22, 7

config{ rate_limit = { limit = 2, window = 600, summary = true } }

local function quiet(at)
  local hour = tonumber(os.date("!%H", math.floor(at)))
  return hour >= QUIET_FROM or hour < QUIET_UNTIL
end

rule("quiet hours", function(toast)
  if toast.role ~= "error" and quiet(toast.at) then
    local what = toast.made_by and ("a summary from " .. toast.made_by .. ", ") or ""
    return false, "quiet hours (" .. what .. os.date("!%H:%M", math.floor(toast.at)) .. " UTC)"
  end
end)
