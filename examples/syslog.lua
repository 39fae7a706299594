-- syslog (/var/log/syslog, or `journalctl -o short-iso-precise`) as toasts at the log's times.
-- Run: Scripts/toastscript --format json examples/syslog.lua < examples/syslog.log
--
-- Two forms are read: rsyslog's default on Debian, "2026-11-30T10:06:31.118204+01:00 HOST
-- PROGRAM[PID]: MESSAGE", and the classic "Nov 30 10:06:31 HOST PROGRAM: MESSAGE" (its time has
-- no year or zone: parse_time takes the current year, in UTC unless --tz local).

parse(function(line)
  local stamp, host, program, message = line:match("^(%d%d%d%d%-%d%d%-%d%dT%S+) (%S+) ([^:%[]+)[^:]*: (.*)$")
  if not stamp then
    stamp, host, program, message = line:match("^(%a%a%a [ %d]%d %d%d:%d%d:%d%d) (%S+) ([^:%[]+)[^:]*: (.*)$")
  end
  if not stamp then return nil end
  local at, why = parse_time(stamp)
  if not at then error("cannot read the time: " .. why) end
  return { at = at, message = message:match("^%s*(.-)%s*$"), source = program, host = host }
end)

-- Cron's routine lines are not worth a toast.
rule("quiet cron", function(t)
  if t.source == "CRON" then return false, "routine" end
end)

-- Roles from what the line says.
rule("classify", function(t)
  local text = t.message
  if text:find("Out of memory") or text:find("%[emerg%]") or text:find("FAILURE") or text:find("failed for") then
    t.role = "error"
  elseif text:find("^Failed password") or text:find("killed by the OOM killer") then
    t.role = "warning"
  elseif text:find("^Started ") then
    t.role = "success"
  end
end)

-- The same failed login, over and over: once per 30 seconds is enough.
config{ dedup = { window = 30 }, queue = { policy = "stack", max_visible = 2, limit = 4 } }
