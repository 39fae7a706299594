-- The bench's standard rules, for streams from bench/workload.py.
--   toastscript --format json bench/rules.lua < events.jsonl

-- Debug toasts never reach the screen (drop: stage rule, rule "drop debug").
rule("drop debug", function(t)
  if t.level == "debug" then return false end
end)

-- Errors are shouted. string.upper changes ASCII letters only ("保存できませんでした" stays).
rule("shout errors", function(t)
  if t.role == "error" then t.message = t.message:upper() end
end)
