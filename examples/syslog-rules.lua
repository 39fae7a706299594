-- The same syslog as examples/syslog.lua, with no code at all: --input syslog reads each line
-- (time, host, program, PID, and a level from the words), and rules stated as tables decide.
-- Run: Scripts/toastscript --input syslog --format json examples/syslog-rules.lua < examples/syslog.log

-- Cron's routine lines are not worth a toast.
rule("quiet cron", { when = { source = "CRON" }, drop = "routine" })

-- Roles from what the line says ([emerg] is read as a level already: an error).
rule("oom", { when = { message = { starts_with = "[" }, source = "kernel" }, set = { role = "error" } })
rule("failed unit", { when = { message = { ends_with = "status=1/FAILURE" } }, set = { role = "error" } })
rule("failed reload", { when = { message = { starts_with = "Reload failed for" } }, set = { role = "error" } })
rule("bad password", { when = { message = { starts_with = "Failed password" } }, set = { role = "warning" } })
rule("oom killer", { when = { message = { contains = "killed by the OOM killer" } }, set = { role = "warning" } })
rule("started", { when = { message = { starts_with = "Started " } }, set = { role = "success" } })

-- The same failed login, over and over: once per 30 seconds is enough.
config{ dedup = { window = 30 }, queue = { policy = "stack", max_visible = 2, limit = 4 } }
