-- A custom "critical" role: its own symbol, glyph and color, first in line, and an
-- announcement that says what to do. Errors that mention data loss become critical.
-- Run: Scripts/toastscript --format json examples/mask-emails.lua examples/critical-role.lua < examples/support.jsonl

role("critical", {
  symbol = "exclamationmark.octagon.fill",
  glyph = "‼",
  color = "red",
  label = "Critical",
  priority = 10,
  announce = function(toast)
    local text = "Critical: " .. toast.message
    if toast.subtitle then text = text .. ". " .. toast.subtitle end
    return text .. ". Open the app to resolve it."
  end,
})

rule("data loss is critical", function(toast)
  if toast.role == "error" and toast.message:lower():find("data loss", 1, true) then
    toast.role = "critical"
    toast.duration = nil   -- stays until dismissed
  end
end)
