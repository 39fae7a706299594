-- A chatty source rate-limited harder than the rest: its own rate limit, pointed at it with
-- `when`, lets one line a minute through and sums up the others; every other source keeps
-- the default limit; errors skip both (their default `spare`), so "metrics exporter crashed"
-- is shown however many metrics lines came before it.
-- Run: Scripts/toastscript --format json examples/quiet-source.lua < examples/build-alerts.jsonl

config{
  metrics_limit = { stage = "rate_limit", when = { source = "metrics" },
                    limit = 1, window = 60, summary = true },
  stages = { "rules", "debounce", "dedup", "digest", "metrics_limit", "rate_limit",
             "priority", "style", "announce" },
}
