-- A heavier bench script: six rules using string functions and state kept between toasts,
-- as real rule sets do. For streams from bench/workload.py.
--   toastscript --format json bench/rules-five.lua < events.jsonl

-- Debug toasts never reach the screen.
rule("drop debug", function(t)
  if t.level == "debug" then return false, "debug" end
end)

-- Paths and e-mail addresses are shortened before they are shown or spoken.
rule("mask paths", function(t)
  if t.message:find("/", 1, true) then
    t.message = t.message:gsub("/[%w%._%-/]+", "/…")
  end
  if t.subtitle and t.subtitle:find("@", 1, true) then
    t.subtitle = t.subtitle:gsub("[%w%.]+@[%w%.]+", "someone")
  end
end)

-- A source that errs three times within a minute is muted for the rest of that minute.
local errors = {}
rule("mute failing source", function(t)
  if t.role ~= "error" or not t.source then return end
  local now = t.at or 0
  local seen = errors[t.source]
  if not seen or now - seen.since > 60 then
    errors[t.source] = { since = now, count = 1 }
    return
  end
  seen.count = seen.count + 1
  if seen.count > 3 then return false, "source muted" end
end)

-- Warnings from security become errors.
rule("escalate security", function(t)
  if t.role == "warning" and t.source == "security" then t.role = "error" end
end)

-- Long messages are cut to 40 characters (by UTF-8 characters, not bytes).
rule("trim long", function(t)
  if utf8.len(t.message) and utf8.len(t.message) > 40 then
    t.message = t.message:sub(1, utf8.offset(t.message, 40) - 1) .. "…"
  end
end)

-- Errors are shouted, and each one counts toward its source's tally.
local tally = {}
rule("shout errors", function(t)
  if t.role == "error" then
    t.message = t.message:upper()
    tally[t.source or "?"] = (tally[t.source or "?"] or 0) + 1
    t.errors_so_far = tally[t.source or "?"]
  end
end)
