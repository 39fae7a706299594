-- A flaky sync floods the screen with failures. Dedup keeps one per message for 5 s,
-- the rate limit lets 3 lesser toasts of a source through every 10 s and sums up the rest;
-- errors skip the rate limit (its default `when`), so each one that is no duplicate shows.
-- Run: Scripts/toastscript --format json examples/flaky-sync.lua < examples/flaky-sync.jsonl

config{
  dedup = { window = 5, fields = { "message", "subtitle", "role" } },
  rate_limit = { limit = 3, window = 10, key = "source", summary = true },
  queue = { policy = "stack", max_visible = 2, limit = 2 },
}
