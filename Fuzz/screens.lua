-- For the pipeline fuzz target: screens named by the source, at most three at once, so fuzzed
-- input makes, forgets, ends and reuses screens; each with its own dedup, debounce, digest and
-- rate-limit summaries; a rule that moves toasts to another screen, and timers that bring toasts
-- in for screens of their own, so a screen can be ended by the limit in the step that used it.
config{
  screens = { by = "source", limit = 3 },
  debounce = { window = 0.5, max_wait = 2, fields = { "role" } },
  digest = { window = 3, min = 2 },
  rate_limit = { limit = 2, key = "role", summary = true },
}
rule("move and bring in", function(t)
  local size = #t.message
  if size % 5 == 0 then t.source = "moved" .. size % 2 end
  if size % 7 == 0 then emit{ message = "copy of " .. t.id, source = "copies" .. size % 4 } end
  if size % 3 == 0 then
    local id = t.id
    after(size % 4, function() emit{ message = "later " .. id, source = id } end)
  end
end)
