-- dpkg's log (/var/log/dpkg.log) as toasts at the log's own times: what was installed,
-- upgraded and removed, and, as an error, every package dpkg left unfinished.
-- Run: Scripts/toastscript --input text examples/dpkg.lua < examples/dpkg.log
-- The log's times are local, as parse_time reads them, and shown as they are written.
--
-- A line reads "DATE TIME ACTION PACKAGE VERSION..." or "DATE TIME status STATE PACKAGE VERSION".
-- Every upgrade and removal passes through half-installed and half-configured for a moment, apt
-- unpacks in one run of dpkg and configures in the next, and triggers (man-db's, say) may take
-- seconds: a package's state says nothing until dpkg is done. So a package is judged by its last
-- status once the log has been quiet for a minute (apt's runs of dpkg are over) or has ended: an
-- error if that is half-configured, half-installed, unpacked or triggers-awaited, and nothing if
-- it is installed or removed, however long it took to get there.

local quiet_seconds = 60
local unfinished = {
  ["half-configured"] = "its configuration did not finish",
  ["half-installed"] = "its unpacking or removal did not finish",
  ["unpacked"] = "it was unpacked and never configured",
  ["triggers-awaited"] = "it awaits triggers that never ran",
}

local function name(package) return (package:gsub(":.*$", "")) end

-- Each package's last status, and the packages already reported in that state.
local last, reported = {}, {}
-- A line is read (by parse) before the clock reaches its time: status lines wait in a queue
-- until the clock passes them, and each line's time is kept for the quiet check of the line
-- before it.
local queue, first, count = {}, 1, 0
local line_at, lines = {}, 0

local function apply_statuses_until(time)
  while queue[first] and queue[first].at <= time do
    local status = queue[first]
    queue[first], first = nil, first + 1
    last[status.package] = status.state
    if not unfinished[status.state] then reported[status.package] = nil end
  end
end

local function report_unfinished()
  apply_statuses_until(now())
  local packages = {}
  for package, state in pairs(last) do
    if unfinished[state] and reported[package] ~= state then packages[#packages + 1] = package end
  end
  table.sort(packages)
  for _, package in ipairs(packages) do
    reported[package] = last[package]
    emit{ role = "error", message = name(package) .. " was left " .. last[package], subtitle = unfinished[last[package]],
          source = name(package), duration = "long" }
  end
end

parse(function(line)
  local stamp, action, rest = line:match("^(%d+%-%d+%-%d+ %d+:%d+:%d+) (%S+) (.*)$")
  if not stamp then return nil end
  local at = parse_time(stamp)
  -- A minute after this line, if no line came in that minute, dpkg is done for now.
  lines = lines + 1
  local this = lines
  line_at[this] = at
  after(math.max(at - now(), 0) + quiet_seconds, function()
    local next_at = line_at[this + 1]
    line_at[this] = nil
    if next_at == nil or next_at > at + quiet_seconds then report_unfinished() end
  end)
  local function toast(role, message, subtitle, package)
    return { at = at, role = role, message = message, subtitle = subtitle, source = name(package) }
  end

  if action == "install" then
    local package, version = rest:match("^(%S+) %S+ (%S+)$")
    return toast("success", "Installed " .. name(package), version, package)
  elseif action == "upgrade" then
    local package, old, new = rest:match("^(%S+) (%S+) (%S+)$")
    return toast("info", "Upgraded " .. name(package) .. " to " .. new, "from " .. old, package)
  elseif action == "remove" or action == "purge" then
    local package = rest:match("^(%S+)")
    return toast("warning", (action == "purge" and "Purged " or "Removed ") .. name(package), nil, package)
  elseif action == "status" then
    local state, package = rest:match("^(%S+) (%S+)")
    if state and package then
      count = count + 1
      queue[count] = { at = at, package = package, state = state }
    end
  end
  return nil   -- status, startup, configure, trigproc: nothing to show by itself
end)
