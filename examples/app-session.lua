-- A photo app's session: one toast at a time, a short line, taps and swipes.
-- Run: Scripts/toastscript examples/app-session.lua < examples/app-session.jsonl

config{
  queue = { duration = 3, limit = 3 },
  dedup = { window = 2 },   -- a double-tapped "Save" shows once
}

-- Debug chatter from development builds never reaches users.
rule("drop debug", function(toast)
  if toast.level == "debug" then return false, "debug build only" end
end)
