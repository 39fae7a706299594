-- Errors by the minute, everything else by ten seconds: two digests, each pointed at its
-- toasts with `when`. The first error of a source shows at once; the ones after it within a
-- minute become one toast that stands for them ("3 more from ci", role error). Warnings and
-- info lines are digested by ten seconds on their own.
-- Run: Scripts/toastscript --format json examples/errors-by-the-minute.lua < examples/build-alerts.jsonl

config{
  errors = { stage = "digest", when = { role = "error" }, window = 60 },
  digest = { when = { role = { ["not"] = "error" } }, window = 10 },
  stages = { "rules", "debounce", "dedup", "errors", "digest", "rate_limit",
             "priority", "style", "announce" },
}
