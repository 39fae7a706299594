extension LuaRuntime {
    /// With `--tz utc`, `os.date` and `os.time` read and write UTC, as `parse_time` and the
    /// dates shown do (docs/lua.md, "Time"): `os.date` formats as if its format started with
    /// `!`, and `os.time{...}` reads the table's fields as UTC. The process's own zone (`TZ`)
    /// is left alone: other threads, and other runs in the same process, use it.
    func installTimeZone() {
        guard options.timeZone == .utc else { return }
        state.runBuiltInChunk(Self.utcClock, name: "os (--tz utc)")
    }

    /// `os.time` of a table as UTC: days from the civil date (Howard Hinnant's
    /// `days_from_civil`, exact for every year), fields defaulted and checked as Lua's own
    /// `os.time` does (`hour` 12, `min` and `sec` 0; `year`, `month`, `day` required, whole).
    private static let utcClock = """
        local date, time, type, error = os.date, os.time, type, error
        local tointeger = math.tointeger
        local function field(t, name, default)
          local value = t[name]
          if value == nil then
            if default == nil then error("field '" .. name .. "' missing in date table", 3) end
            return default
          end
          local whole = tointeger(value)
          if whole == nil then error("field '" .. name .. "' is not an integer", 3) end
          return whole
        end
        os.date = function(format, t)
          format = format or "%c"
          if type(format) == "string" and format:sub(1, 1) ~= "!" then format = "!" .. format end
          return date(format, t)
        end
        os.time = function(t)
          if t == nil then return time() end
          if type(t) ~= "table" then return time(t) end
          local year, month, day = field(t, "year"), field(t, "month"), field(t, "day")
          local seconds = field(t, "hour", 12) * 3600 + field(t, "min", 0) * 60 + field(t, "sec", 0)
          year = year + (month - 1) // 12
          month = (month - 1) % 12 + 1
          if month <= 2 then year = year - 1 end
          local era = year // 400
          local yearOfEra = year - era * 400
          local dayOfYear = (153 * ((month + 9) % 12) + 2) // 5 + day - 1
          local dayOfEra = yearOfEra * 365 + yearOfEra // 4 - yearOfEra // 100 + dayOfYear
          return (era * 146097 + dayOfEra - 719468) * 86400 + seconds
        end
        """
}
