-- Quiet nights for a custom toastscript: quiet hours from 22:00 to 07:00 UTC (errors
-- still get through) and repeated warnings escalated to errors before that check.
-- Run: swift run my-toastscript --format json examples/night.lua < examples/night.jsonl

config{
  stages = { "rules", "escalate", "quiet_hours", "dedup", "rate_limit", "priority", "style", "announce" },
  escalate = { count = 3, window = 300 },
  quiet_hours = { from = 22, to = 7, keep = { "error" } },
}
