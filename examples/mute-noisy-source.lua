-- Mute a noisy source: social notifications never interrupt this session.
-- Run: Scripts/toastscript examples/app-session.lua examples/mute-noisy-source.lua < examples/app-session.jsonl

local muted = { social = true, marketing = true }

rule("mute noisy sources", function(toast)
  if toast.source and muted[toast.source] then
    return false, "muted source " .. toast.source
  end
end)
