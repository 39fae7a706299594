-- The systemd journal as toasts: `journalctl -o json -f | toastscript examples/journal.lua`.
-- Run: Scripts/toastscript --format json examples/journal.lua < examples/journal.jsonl
--
-- journalctl writes one JSON object per entry with its own field names: MESSAGE, PRIORITY
-- (syslog's 0 emergency … 7 debug, as a string), SYSLOG_IDENTIFIER and __REALTIME_TIMESTAMP
-- (microseconds since the epoch, as a string). parse turns each entry into a show event.

-- Several entries can be on screen at once; critical ones stay there.
config{ queue = { policy = "stack", max_visible = 3, limit = 5 } }

local roles = { [0] = "error", "error", "error", "error", "warning", "info", "info" }  -- 7 (debug): skipped

parse(function(entry)
  local priority = tonumber(entry.PRIORITY) or 6
  local role = roles[priority]
  -- Debug entries are skipped, and so is a MESSAGE the journal stores as bytes (a list).
  if not role or type(entry.MESSAGE) ~= "string" then return nil end
  return {
    at = tonumber(entry.__REALTIME_TIMESTAMP) / 1e6,
    message = entry.MESSAGE,
    role = role,
    source = entry.SYSLOG_IDENTIFIER or entry._COMM,
    host = entry._HOSTNAME,        -- an extra field: present records carry it
    priority = priority <= 2 and 5 or nil,
  }
end)

-- Emergencies, alerts and critical entries stay until someone dismisses them.
rule("critical stays", function(t)
  if t.role == "error" and t.priority and t.priority >= 5 then t.duration = nil end
end)
