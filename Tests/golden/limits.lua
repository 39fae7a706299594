-- Settings for a golden stream that makes the rate limit, its summaries and stacking work.
config{
  rate_limit = { limit = 3, window = 5, summary = true },
  queue = { policy = "stack", limit = 4, max_visible = 2 },
  dedup = { window = 2 },
}
