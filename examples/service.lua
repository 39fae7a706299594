-- A notification service's rules, written to run for months under --state
-- (docs/service.md): what the rules keep lives in `store`, so it survives a
-- reload (SIGHUP) and a restart, and every stage that holds toasts is used.
--
-- Run: Scripts/toastscript --state /tmp/service.state --output /tmp/service.out \
--        examples/service.lua < examples/service.jsonl

config{
  -- A burst of warnings from one source shows once, 2 s after it ends (10 s at most).
  debounce = { when = { role = "warning" }, fields = { "source" }, window = 2, max_wait = 10 },
  -- Info toasts from one source within half a minute become one digest.
  digest = { when = { role = "info" }, key = "source", window = 30, min = 3 },
  rate_limit = { limit = 3, window = 10, summary = true },
  dedup = { window = 3 },
  stages = { "rules", "debounce", "dedup", "digest", "rate_limit", "priority", "style", "announce" },
}

local WINDOW, THRESHOLD = 60, 3

-- Kept across reloads and restarts: errors counted by source, and the times
-- of each source's recent warnings.
store.errors = store.errors or {}
store.warnings = store.warnings or {}

rule("number errors by source", function(t)
  if t.role ~= "error" then return end
  local source = t.source or "?"
  store.errors[source] = (store.errors[source] or 0) + 1
  t.subtitle = string.format("error %d from %s", store.errors[source], source)
end)

rule("escalate repeated warnings", function(t)
  if t.role ~= "warning" then return end
  local source = t.source or "?"
  local kept = {}
  for _, at in ipairs(store.warnings[source] or {}) do
    if now() - at < WINDOW then kept[#kept + 1] = at end
  end
  kept[#kept + 1] = now()
  store.warnings[source] = kept
  if #kept >= THRESHOLD then
    t.role = "error"
    t.subtitle = string.format("%d warnings in %d s", #kept, WINDOW)
  end
end)

on("restore", function()
  log(string.format("restored: errors counted from %d sources", (function()
    local n = 0
    for _ in pairs(store.errors) do n = n + 1 end
    return n
  end)()))
end)
