-- A CI run where a burst of test failures becomes one toast: the first failure is shown at
-- once, the ones after it within 30 seconds are held, and one digest toast stands for them
-- ("11 more tests failed"); the verdict and the other build lines go on as they came.
-- Run: Scripts/toastscript --input text --format json examples/ci-failures.lua < examples/ci-failures.log

config{
  -- Failures share the group "failures"; every other line is a group of its own (its text),
  -- so it opens its own window and goes on at once.
  digest = { window = 30, key = "burst", min = 3, message = "{count} more tests failed (the last: {last})" },
  dedup = false,
}

parse(function(line)
  local stamp, step, text = line:match("^(%S+) (%a+): (.*)$")
  if not stamp then return nil end
  local event = { at = parse_time(stamp), message = text, source = step, burst = text }
  if text:match("^FAIL ") then
    event.role, event.burst = "error", "failures"
    event.message = text:gsub("^FAIL (%S+).*$", "%1 failed")
  elseif text:match("failures?$") or text:match("failed$") then
    event.role = "error"
  end
  return event
end)
