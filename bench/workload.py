#!/usr/bin/env python3
"""toastscript's own deterministic workloads: JSON Lines event streams for the benchmark and
the golden-output tests.

    python3 bench/workload.py --n 1000000 --seed 1 --profile steady > events.jsonl

The same (--n, --seed, --profile) gives the same bytes on every machine and Python version:
the generator uses its own random number generator (splitmix64), not Python's.

What a stream holds:
  * about 97% show events: "type", "at" (seconds with millisecond steps, never decreasing,
    equal times occur), "message" (one of 60 app toasts: non-ASCII text, emoji, quotes,
    backslashes and slashes; the message decides the role), "role", "level" ("debug" for
    about 10%, else "normal": an extra field the bench rules read) and "source" (one of 24 app
    areas); about 20% carry a "subtitle"; about 6% carry host settings (a duration, a
    placement, a policy, a priority, a dedup key) and about 4% a nested extra object;
  * about 3% interactions: tap, swipe, long_press, drag (begin, or end with a dy), dismiss by
    id (one of the last 12 shows) or of the newest toast, tick, and rarely dismiss_all.

Profiles:
  steady  arrivals at random gaps, 5 events a second on average;
  bursty  bursts of up to 40 events within 800 ms, quiet gaps of 4 to 20 s between them
          (the rate limit and the waiting line work hard).
"""
import argparse
import json
import sys

MASK = (1 << 64) - 1


class SplitMix64:
    """A small, fully specified generator, so the bytes never depend on Python's `random`."""

    def __init__(self, seed):
        self.state = (seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & MASK

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def below(self, n):
        """An integer in [0, n)."""
        return self.next() % n

    def chance(self, per_thousand):
        return self.below(1000) < per_thousand

    def pick(self, items):
        return items[self.below(len(items))]


# (role, message). The role follows from the message, as it does in an app.
MESSAGES = [
    ("info", "Alex mentioned you in #design"), ("info", "Syncing 12 photos…"),
    ("info", "2 updates ready to install"), ("info", "Copied to clipboard"),
    ("info", "Offline: edits are kept on this device"), ("info", "Meeting starts in 10 minutes"),
    ("info", "Downloading map of Lisbon"), ("info", "Link copied"), ("info", "Battery 20% 🔋"),
    ("info", "Version 3.2 is available"), ("info", "Shared with Mia and Sam"),
    ("info", "Focus mode on 🌙"), ("info", "Nouveau commentaire de Léa"),
    ("info", "Recording the screen"), ("info", "Новое сообщение от Ольги"),
    ("info", "Path set to /home/demo/Documents"),
    ("success", "Saved"), ("success", "Upload finished"), ("success", "Payment sent"),
    ("success", "Preferences updated"), ("success", "Файл сохранён"), ("success", "送信しました"),
    ("success", "Photo posted 📷"), ("success", "Backup complete"),
    ("success", "Avatar changed"), ("success", "Inbox zero! 🎉"),
    ("success", "Export réussi"), ("success", "Änderungen übernommen"),
    ("success", 'Exported "Q4 plan.pdf"'), ("success", "Pinned ⭐"),
    ("warning", "Storage 95% full"), ("warning", "Wi‑Fi signal is weak"),
    ("warning", "Battery critically low: 5%"), ("warning", "You will be signed out in 1 minute"),
    ("warning", "Draft not saved"), ("warning", '"Budget 2027.xlsx" opened read-only'),
    ("warning", "Slow network 🐌"), ("warning", "Срок действия пароля истекает"),
    ("warning", "Too many tries: wait 60 s"), ("warning", "Certificate expires in 3 days"),
    ("error", "Can't connect. Check your network."), ("error", "Upload failed"),
    ("error", "Card declined"), ("error", 'Couldn\'t open "Budget \\ 2027.xlsx"'),
    ("error", "Server error (503)"), ("error", "Access denied: /etc/app/config.yml"),
    ("error", "保存できませんでした"), ("error", "Sync stopped ⚠️"), ("error", "Wrong password"),
    ("error", "Disk full — 0 bytes left"), ("error", "Folder C:\\Users\\sam\\Music not found"),
    ("error", "Ошибка соединения"), ("error", "Timeout after 30 s"),
    ("info", "Tip: press / to search"), ("success", "Ticket #4521 closed"),
    ("warning", "3 files skipped"), ("error", "Crash in renderer — report sent"),
    ("info", "Welcome back, Zoë"), ("success", "Done ✅"), ("error", "Quota exceeded (100/100)"),
]
SUBTITLES = [
    "Tap to open", "Ready to share", "3 files", "Just now", "From Camera", "Swipe to hide",
    "Retrying in 10 s", "Last sync 5 min ago", "Open Settings", "via Dropbox", "Undo",
    "See the log for details", "Нажмите для просмотра", "詳細はこちら", "🔕 Muted until 9:00",
    "Build 3.2.0 (412)", "“Team offsite”", "To sam@example.org", "Learn more", "C:\\Temp",
]
SOURCES = [
    "mail", "calendar", "photos", "sync", "auth", "payments", "downloads", "uploads", "settings",
    "chat", "backup", "updater", "network", "battery", "editor", "files", "share", "clipboard",
    "security", "music", "maps", "notes", "tickets", "recorder",
]
# Host settings some shows carry: each a JSON fragment that starts with a comma.
SETTINGS = [
    ',"duration":"short"', ',"duration":"long"', ',"duration":5', ',"duration":null',
    ',"placement":"bottom"', ',"placement":"center"', ',"policy":"stack"', ',"policy":"replace"',
    ',"priority":2', ',"priority":-1', ',"key":"sync-state"', ',"dismiss_on_long_press":true',
    ',"swipe":false', ',"dismiss_on_tap":false', ',"after":0.5',
]


def arrival_times_ms(rng, n, profile):
    """n never-decreasing event times in whole milliseconds."""
    t = 0
    if profile == "steady":
        for _ in range(n):
            # Gaps of 0 to 399 ms, 200 ms on average, with some exact repeats.
            t += 0 if rng.chance(30) else rng.below(400)
            yield t
        return
    left = n
    while left:
        k = min(1 + rng.below(40), left)
        offsets = sorted(rng.below(800) for _ in range(k))
        for offset in offsets:
            yield t + offset
        t += 800 + 4000 + rng.below(16000)
        left -= k


def seconds(ms):
    """Milliseconds as the shortest decimal seconds: 1500 -> 1.5, 2000 -> 2, 7 -> 0.007."""
    whole, rest = divmod(ms, 1000)
    return str(whole) if rest == 0 else f"{whole}.{rest:03d}".rstrip("0")


def generate(n, seed, profile, out, screens=0):
    rng = SplitMix64(seed)
    text = lambda s: json.dumps(s, ensure_ascii=False)
    messages = [(text(message), text(role)) for role, message in MESSAGES]
    subtitles = [text(s) for s in SUBTITLES]
    sources = [text(s) for s in SOURCES]
    shows = 0
    lines = []
    for index, ms in enumerate(arrival_times_ms(rng, n, profile)):
        at = seconds(ms)
        if rng.chance(30):
            lines.append(interaction(rng, at, shows))
        else:
            shows += 1
            message, role = rng.pick(messages)
            level = '"debug"' if rng.chance(100) else '"normal"'
            source = rng.pick(sources)
            subtitle = f',"subtitle":{rng.pick(subtitles)}' if rng.chance(200) else ""
            settings = rng.pick(SETTINGS) if rng.chance(60) else ""
            extra = (f',"build":{{"number":{rng.below(5000)},"ok":{"true" if rng.chance(500) else "false"}}}'
                     if rng.chance(40) else "")
            lines.append(f'{{"type":"show","at":{at},"message":{message}{subtitle},"role":{role},'
                         f'"level":{level},"source":{source}{settings}{extra}}}')
        if screens:
            # Bursts of five events for one screen, the screens spread by a multiplicative hash:
            # a few toasts each, and every event, interactions too, names its screen.
            lines[-1] = lines[-1][:-1] + f',"user":"u{(index // 5 * 2654435761) % screens}"}}'
        if len(lines) >= 8192:
            out.write("\n".join(lines) + "\n")
            lines.clear()
    if lines:
        out.write("\n".join(lines) + "\n")


def interaction(rng, at, shows):
    kind = rng.below(100)
    if kind < 35:
        return f'{{"type":"tap","at":{at}}}'
    if kind < 55:
        return f'{{"type":"swipe","at":{at}}}'
    if kind < 60:
        return f'{{"type":"long_press","at":{at}}}'
    if kind < 65:
        return f'{{"type":"drag","at":{at},"phase":"begin"}}'
    if kind < 72:
        return f'{{"type":"drag","at":{at},"phase":"end","dy":{rng.below(81) - 40}}}'
    if kind < 85 and shows:
        return f'{{"type":"dismiss","at":{at},"id":"t{max(1, shows - rng.below(12))}"}}'
    if kind < 94:
        return f'{{"type":"dismiss","at":{at}}}'
    if kind < 98:
        return f'{{"type":"tick","at":{at}}}'
    return f'{{"type":"dismiss_all","at":{at}}}'


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=1_000_000, help="number of events (lines)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", choices=("steady", "bursty"), default="steady")
    parser.add_argument("--screens", type=int, default=0,
                        help="give every event a field user naming one of this many screens (0: none)")
    args = parser.parse_args()
    if args.n < 0:
        parser.error("--n must be 0 or more")
    generate(args.n, args.seed, args.profile, sys.stdout, args.screens)


if __name__ == "__main__":
    main()
