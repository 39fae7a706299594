-- A hook that sums up what was hidden: every 4th dropped toast from a source brings in
-- one summary toast, so the user knows something is going on without the flood.
-- Run: Scripts/toastscript --format json examples/flaky-sync.lua examples/summary-hook.lua < examples/flaky-sync.jsonl

config{ rate_limit = { summary = false } }   -- this hook replaces the built-in summary

local hidden = {}   -- source -> dropped toasts not yet summed up
local total = 0     -- all dropped toasts so far

on("drop", function(toast, info)
  if info.stage == "rule" then return end
  local source = toast.source or "the app"
  hidden[source] = (hidden[source] or 0) + 1
  total = total + 1
  if hidden[source] == 4 then
    hidden[source] = 0
    local id = emit{ message = string.format("4 more from %s were hidden (%d so far)", source, total),
                     source = "toastscript", duration = "long" }
    log("summary", id, "at", now())
  end
end)
