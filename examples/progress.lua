-- A progress flood: an upload reports its progress every 200 ms. Shown one by one, they would
-- queue up for a minute; debounced, each upload's burst ends in one toast, its last line,
-- once the progress has been quiet for a second. An error is not part of any burst.
-- Run: Scripts/toastscript --format json examples/progress.lua < examples/progress.jsonl

config{ debounce = { window = 1, max_wait = 5 } }

-- Lines of one upload are one burst: its key is the upload's file.
rule("progress key", function(t)
  if t.file and t.role ~= "error" then t.key = "upload:" .. t.file end
end)
