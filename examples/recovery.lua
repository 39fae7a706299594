-- "Sync recovered": a source that reported errors and then stayed quiet for 5 minutes gets a
-- success toast saying it recovered. Every error from a source (re)starts its timer, so the
-- toast comes 5 minutes after the last error, on the stream's own clock (`after`); at the end
-- of the input, on("end") tells which sources are still being watched (the drain then runs
-- their timers).
-- Run: Scripts/toastscript --format json examples/recovery.lua < examples/recovery.jsonl

local SILENCE = tonumber(vars.silence or "300")   -- seconds; --var silence=60 to change it
local watching = {}                               -- source -> the handle of its timer

rule("watch errors", function(toast)
  if toast.role ~= "error" or not toast.source or toast.made_by then return end
  local source = toast.source
  if watching[source] then watching[source]:cancel() end
  watching[source] = after(SILENCE, function()
    watching[source] = nil
    emit{ message = source .. " recovered", subtitle = "no errors for " .. SILENCE .. " s",
          role = "success", source = source }
  end)
end)

on("end", function()
  local sources = {}
  for source in pairs(watching) do sources[#sources + 1] = source end
  table.sort(sources)
  log("watching at the end of input:", json.encode(sources))
end)
