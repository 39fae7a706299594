-- A Go service's logfmt log (as logrus, zap or slog write it), read natively: msg is the
-- message, level the role, time the moment; every other pair is a field. A pair named like a
-- toast's own field (role=admin here) is kept as logfmt.role: the log never steers the screen.
-- Run: Scripts/toastscript --input logfmt --format json examples/api-logfmt.lua < examples/api-logfmt.log

-- Health checks and debug lines are no news.
rule("health checks", { when = { message = { starts_with = "GET /healthz" } }, drop = "health check" })
rule("debug", { when = { level = "debug" }, drop = "debug" })

-- Plain request lines are chatter; the circuit opening is what the on-call needs.
rule("requests", { when = { status = "200" }, drop = "a request that went well" })
rule("circuit", { when = { message = { starts_with = "circuit open" } }, set = { role = "warning", priority = 3 } })

-- The same upstream failing again within a minute is the same news.
config{ dedup = { window = 60, fields = { "message", "upstream" } } }
