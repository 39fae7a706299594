-- A calmer take on examples/app-session.lua, to compare before shipping it:
--   Scripts/toastscript diff examples/app-session.lua examples/app-session-calm.lua < examples/app-session.jsonl
-- Social chatter waits for the inbox, successes are brief, and nothing stacks up behind
-- a toast for long.

config{
  queue = { duration = 3, limit = 1 },
  dedup = { window = 2 },
}

rule("drop debug", function(toast)
  if toast.level == "debug" then return false, "debug build only" end
end)

-- The inbox shows comments and likes; a toast for each is noise.
rule("quiet social", function(toast)
  if toast.source == "social" then return false, "shown in the inbox" end
end)

-- A success needs a glance, not three seconds.
rule("brief success", function(toast)
  if toast.role == "success" then toast.duration = 1.5 end
end)
