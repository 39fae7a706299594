-- A progress flood: an upload reports its progress every 200 ms. Shown one by one, they would
-- queue up for a minute; debounced, each upload's burst ends in one toast, its last line,
-- once the progress has been quiet for a second. Only the upload's progress is debounced:
-- its `when` takes the upload's lines (its default `spare` keeps errors out), and its key is
-- the file alone, so other toasts (and an upload's error) go on at once.
-- Run: Scripts/toastscript --format json examples/progress.lua < examples/progress.jsonl

config{
  debounce = {
    window = 1, max_wait = 5,
    when = { source = "upload" },
    fields = { "file" },
  },
}
