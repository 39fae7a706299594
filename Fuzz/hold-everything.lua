-- For the pipeline fuzz target: the stages that hold (debounce, digest with a message
-- function) and the rate limit's summaries, timers set and cancelled from a rule, made toasts
-- seen by the rules, json both ways, and an end-of-input hook, so fuzzed input reaches the
-- bookkeeping of held toasts and the scripts' clock.
config{
  debounce = { window = 0.5, max_wait = 2, fields = { "role" } },
  digest = { window = 3, min = 2, message = function(list)
    return json.encode({ n = #list, last = list[#list].message })
  end },
  rate_limit = { limit = 2, summary = true },
}
rule("timers and json", function(t)
  local size = #t.message
  if size % 3 == 0 then
    local id = t.id
    local timer = after(1 + size % 4, function() emit{ message = "later " .. id } end)
    if size % 2 == 0 then timer:cancel() end
  end
  if t.made_by then t.subtitle = t.made_by end
  local ok, text = pcall(json.encode, { message = t.message, role = t.role, source = t.source })
  if ok then json.decode(text) end
end)
on("end", function() log("end of input") end)
