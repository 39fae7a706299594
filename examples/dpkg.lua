-- dpkg's log (/var/log/dpkg.log) as toasts at the log's own times: what was installed,
-- upgraded and removed, and a package whose configuration never finished.
-- Run: Scripts/toastscript --input text examples/dpkg.lua < examples/dpkg.log
-- The log's times are local, as parse_time reads them, and shown as they are written.
--
-- A line reads "DATE TIME ACTION PACKAGE VERSION..." or "DATE TIME status STATE PACKAGE VERSION".
-- Every upgrade passes through half-installed and half-configured for a moment, so such a state
-- becomes a toast only if it lasts: the toast waits 2 seconds (`after`) under an id of its own,
-- and the package's next state cancels it with a dismiss event.

local function name(package) return (package:gsub(":.*$", "")) end

local function cancel_pending(package, at)
  return {
    { type = "dismiss", id = "half-installed:" .. package, at = at },
    { type = "dismiss", id = "half-configured:" .. package, at = at },
  }
end

parse(function(line)
  local stamp, action, rest = line:match("^(%d+%-%d+%-%d+ %d+:%d+:%d+) (%S+) (.*)$")
  if not stamp then return nil end
  local at = parse_time(stamp)
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
    if state == "half-configured" then
      local t = toast("error", name(package) .. " is half-configured", "its configuration did not finish", package)
      t.id, t.after, t.duration = "half-configured:" .. package, 2, "long"
      return t
    elseif state == "half-installed" then
      local t = toast("warning", name(package) .. " is half-installed", "unpacking did not finish", package)
      t.id, t.after = "half-installed:" .. package, 2
      return t
    end
    return cancel_pending(package, at)
  end
  return nil   -- startup, configure, trigproc: nothing to show
end)
