-- The syslog workload read by a Lua parse function (Scripts/bench's twin of --input syslog):
-- `<PRI>TIMESTAMP HOST TAG[PID]: MSG` with an RFC 3339 time, each line an event with the fields
-- --input syslog gives it.
local levels = { [0] = "critical", "critical", "critical", "error", "warning", "info", "info", "debug" }

parse(function(line)
  local pri, stamp, host, tag, pid, message = line:match("^<(%d+)>(%S+) (%S+) ([^%[:]+)%[(%d+)%]: (.*)$")
  if not pri then return { message = line } end
  return { at = parse_time(stamp), message = message, level = levels[tonumber(pri) % 8],
           host = host, source = tag, pid = pid }
end)
