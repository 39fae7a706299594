-- A CI log read line by line (--input text): errors and warnings stand out,
-- progress lines pass quickly, and the final verdict stays until dismissed.
-- Run: Scripts/toastscript --input text examples/ci-log.lua < examples/ci-log.txt

config{
  queue = { policy = "stack", max_visible = 2, limit = 10, duration = "short" },
}

rule("classify", function(toast)
  local text = toast.message
  if text:find("^error") or text:find("failed") then
    toast.role = "error"
    toast.duration = 10
  elseif text:find("^warning") then
    toast.role = "warning"
    toast.duration = 5
  end
  if text:find("^Build ") then
    toast.duration = nil   -- the verdict stays on screen
    toast.priority = 5
  end
end)
