-- Mask e-mail addresses before anything is shown or spoken: screenshots and screen
-- readers should not leak them.
-- Run: Scripts/toastscript --format json examples/mask-emails.lua < examples/support.jsonl

local EMAIL = "[%w%.%%%+%-_]+@[%w%-]+%.[%w%.%-]+"

local function mask(text)
  if text == nil then return nil end
  return (text:gsub(EMAIL, function(address)
    local user, domain = address:match("^(.-)@(.*)$")
    return user:sub(1, 1) .. "…@" .. domain
  end))
end

rule("mask e-mail addresses", function(toast)
  toast.message = mask(toast.message)
  toast.subtitle = mask(toast.subtitle)
end)
