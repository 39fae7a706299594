import Foundation
import Testing

/// `--format html` in a real browser: Debian's chromium, headless (`Scripts/setup --test`
/// installs it). The DOM it builds has one bar per presented toast and one mark per drop, and
/// a screenshot shows the bars in their roles' colors.
@Suite(.serialized) struct HTMLTimelineTests {
    /// Writes the page of `arguments` on `input` to a scratch file; returns the file's path.
    private func page(_ arguments: [String], input: String, directory: String) throws -> String {
        let result = try runBinary(["--format", "html"] + arguments, stdinFile: input)
        #expect(result.status == 0)
        #expect(result.stderr == "")
        let path = directory + "/page.html"
        try result.stdout.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private func chromium(_ options: String, _ path: String) throws -> BinaryResult {
        try runShell("cd '\(NSTemporaryDirectory())' && timeout 120 chromium --headless --no-sandbox --disable-gpu "
                     + "--no-first-run --user-data-dir='\((path as NSString).deletingLastPathComponent)/profile' "
                     + "\(options) 'file://\(path)' 2>/dev/null")
    }

    private func scratch() throws -> String {
        let directory = NSTemporaryDirectory() + "toastscript-html-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    /// The ids of the JSON records of one kind, in order.
    private func ids(of event: String, in records: String) -> [String] {
        records.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  object["event"] as? String == event else { return nil }
            return object["id"] as? String
        }
    }

    private func matches(_ pattern: String, in text: String) -> [String] {
        let expression = try! NSRegularExpression(pattern: pattern)
        return expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).map {
            String(text[Range($0.range(at: 1), in: text)!])
        }
    }

    @Test func theBrowsersDOMHasOneBarPerPresentedToastAndOneMarkPerDrop() throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = try page(["examples/app-session.lua"], input: "examples/app-session.jsonl", directory: directory)
        let records = try runBinary(["--format", "json", "examples/app-session.lua"], stdinFile: "examples/app-session.jsonl").stdout
        let dom = try chromium("--dump-dom", path)
        #expect(dom.status == 0)
        #expect(matches(#"<g class="toast" data-id="([^"]*)""#, in: dom.stdout) == ids(of: "present", in: records))
        #expect(matches(#"<g class="drop" data-id="([^"]*)""#, in: dom.stdout) == ids(of: "drop", in: records))
        #expect(ids(of: "present", in: records).count == 9)
        // What a hover or a click shows: the toast's fields, then its trace.
        let paused = try #require(matches(#"<g class="toast" data-id="t6"[^>]*><title>([^<]*)</title>"#, in: dom.stdout).first)
        #expect(paused.hasPrefix("id: t6\nmessage: Upload failed\nsubtitle: No connection. Try again.\nrole: error"))
        #expect(paused.contains("trace:\n9 s  t6 rule \"drop debug\": pass"))
        #expect(paused.contains("9.5 s  t6 host: paused: a drag holds it: no timeout runs"))
        #expect(paused.hasSuffix("15 s  t6 host: replaced: t7 has policy replace"))
        #expect(dom.stdout.contains("9 presented, 2 dropped (1 by dedup, 1 by rule)"))
    }

    @Test func aScreenshotShowsTheBarsInTheirRolesColors() throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = try page(["examples/app-session.lua"], input: "examples/app-session.jsonl", directory: directory)
        let shot = directory + "/page.png"
        _ = try chromium("--screenshot='\(shot)' --window-size=1700,420", path)
        let colors = try runShell("convert '\(shot)' -unique-colors txt:- | tail -n +2").stdout
        // info, success, error and warning bars: blue, green, red and orange, drawn solid.
        for color in ["#0000FF", "#008000", "#FF0000", "#FFA500"] {
            #expect(colors.contains(color), "no \(color) in the screenshot")
        }
        // Text, a chart and the legend, not an empty page.
        #expect(colors.split(separator: "\n").count > 100)
    }

    @Test func thePageFetchesNothingAndInputCannotBecomeMarkup() throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let events = directory + "/events.jsonl"
        try #"""
            {"message":"<script>alert(1)</script>","role":"evil","subtitle":"\" onmouseover=\"x"}
            {"message":"<img src=http://example.com/x.png>"}
            {"message":"Paid \u202egnp.exe","subtitle":"line one\nline two"}

            """#.write(toFile: events, atomically: true, encoding: .utf8)
        let script = directory + "/roles.lua"
        try #"role("evil", { color = "url(http://example.com/)", glyph = "<b>" })"#
            .write(toFile: script, atomically: true, encoding: .utf8)
        let result = try runBinary(["--format", "html", script, "--events", events])
        let page = result.stdout
        #expect(result.status == 0)
        #expect(!page.contains("<script>alert"))
        #expect(!page.contains("<img"))
        #expect(!page.contains("url("))
        #expect(!page.contains(#"" onmouseover=""#))
        #expect(page.components(separatedBy: "<script").count == 2, "one script: the page's own")
        let path = directory + "/page.html"
        try page.write(toFile: path, atomically: true, encoding: .utf8)
        let dom = try chromium("--dump-dom", path).stdout
        #expect(matches(#"<g class="toast" data-id="([^"]*)""#, in: dom) == ["t1", "t2", "t3"])
        // A bidi override or a line break from the input is shown, not obeyed.
        #expect(!page.contains("\u{202E}") && page.contains(#"Paid \u202egnp.exe"#))
        #expect(page.contains(#"subtitle: line one\nline two"#))
        #expect(dom.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        // Nothing that loads: no images, links, frames or styles from elsewhere.
        #expect(matches(#"<(img|link|iframe|object|embed)\b()"#, in: dom).isEmpty)
        #expect(matches(#"<[a-z][^>]*\s(src|href)=()"#, in: dom).isEmpty)
    }

    /// 100,000 events: the page draws what it can one by one, says where it stops, and still
    /// counts the whole run.
    @Test func aLongRunIsWindowedAndSaysSo() throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let events = directory + "/events.jsonl"
        _ = try runShell("cd '\(root)' && python3 bench/workload.py --n 100000 --seed 3 --profile steady > '\(events)'")
        let result = try runBinary(["--format", "html", "bench/rules.lua", "--events", events])
        #expect(result.status == 0)
        let page = result.stdout
        #expect(page.utf8.count < 8_000_000)
        let bars = page.components(separatedBy: #"<g class="toast""#).count - 1
        let marks = page.components(separatedBy: #"<g class="drop""#).count - 1
        #expect(bars > 0 && bars <= 2_000)
        #expect(marks > 0 && marks <= 2_000)
        #expect(page.contains("The run is too long to draw toast by toast: the timeline shows the first \(bars) presented toasts and \(marks) drops"))
        let totals = try #require(matches(#"<p class="totals">(\d+) presented, (\d+) dropped"#, in: page).first)
        #expect(Int(totals)! > bars)
        let path = directory + "/page.html"
        try page.write(toFile: path, atomically: true, encoding: .utf8)
        let dom = try chromium("--dump-dom", path)
        #expect(dom.stdout.components(separatedBy: #"<g class="toast""#).count - 1 == bars)
    }

    /// Bursts of a log's own times over six weeks: idle stretches are cut out and labelled,
    /// the axis tells the time of day and the date, drops at one spot are counted, and the
    /// widest element as the browser lays it out stays within 16,000 pixels.
    @Test func aRunOfWeeksStaysReadable() throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let day = 86_400
        let start = 1_795_857_242   // 2026-11-28 09:14:02 UTC
        var lines: [String] = []
        for (burst, offset) in [0, 3 * day, 3 * day + 5 * 3600 + 20 * 60, 42 * day].enumerated() {
            for index in 0..<4 {
                let message = "Burst \(burst + 1) step \(index + 1): " + String(repeating: "a long message ", count: 8) + "end"
                lines.append(#"{"at":\#(start + offset + index * 2),"message":"\#(message)","role":"\#(index == 3 ? "error" : "info")"}"#)
            }
            // Five repeats at one moment: dedup drops them on one spot.
            for _ in 0..<5 { lines.append(#"{"at":\#(start + offset + 1),"message":"Disk almost full"}"#) }
        }
        let events = directory + "/events.jsonl"
        try (lines.joined(separator: "\n") + "\n").write(toFile: events, atomically: true, encoding: .utf8)
        let result = try runBinary(["--format", "html", "--tz", "utc", "--events", events])
        #expect(result.status == 0)
        let page = result.stdout
        // Three stretches cut out, each labelled with the time it skips.
        let skipped = matches(#">([^<>]*) skipped</text>"#, in: page)
        #expect(skipped == ["3 d", "5 h 20 min", "38 d 19 h"], "\(skipped)")
        // Times of day on the axis, with the date where it changes; no epoch seconds to read.
        let ticks = matches(#"<text class="tick"[^>]*>([^<]*)</text>"#, in: page)
        #expect(ticks.first == "2026-11-28 09:14:02", "\(ticks)")
        #expect(ticks.contains("2026-12-01 09:14:02") && ticks.contains("14:34:02"), "\(ticks)")
        #expect(ticks.allSatisfy { !$0.hasSuffix(" s") })
        #expect(page.contains("from 2026-11-28 09:14:02.000 to 2027-01-09 09:14:"))
        #expect(matches(#">(17\d{8})"#, in: page).isEmpty, "raw epoch seconds shown")
        // Four drops at one spot are counted (the first of five passed).
        #expect(matches(#"<text class="count"[^>]*>(\d+)</text>"#, in: page) == ["4", "4", "4", "4"])
        // Every toast's whole message is in its tooltip.
        #expect(page.contains("message: Burst 4 step 4: " + String(repeating: "a long message ", count: 8) + "end"))

        let path = directory + "/page.html"
        let measure = "<script>document.body.setAttribute('data-widest', Math.max(...[...document.querySelectorAll('*')]"
            + ".map(e => Math.max(e.scrollWidth, e.getBoundingClientRect().width))))</script></body>"
        try page.replacingOccurrences(of: "</body>", with: measure).write(toFile: path, atomically: true, encoding: .utf8)
        let dom = try chromium("--dump-dom --window-size=1600,800", path)
        let widest = try #require(matches(#"data-widest="([\d.]+)""#, in: dom.stdout).first.flatMap(Double.init))
        #expect(widest > 1_000 && widest <= 16_000, "\(widest)")
    }

    /// The dpkg example's page: the same rules, over its own times.
    @Test func theLegendAndTheTotalsAreInAStillPicture() throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try runBinary(["--format", "html", "--input", "text", "examples/dpkg.lua"], stdinFile: "examples/dpkg.log",
                                   environment: ["TZ": "UTC"])
        #expect(result.status == 0)
        let path = directory + "/page.html"
        try result.stdout.write(toFile: path, atomically: true, encoding: .utf8)
        let dom = try chromium("--dump-dom", path).stdout
        #expect(dom.contains(#"<p class="totals">"#) && dom.contains(#"<ul class="legend">"#))
        // The details panel opens on the first toast shown, not empty.
        #expect(dom.contains(#"<pre id="details">id: t1"#))
    }

    /// A dropped toast's mark has its role's color: dropped errors are red and dropped warnings
    /// orange; in a picture, a dropped error's color is there.
    @Test func aDroppedErrorStandsOutInItsRolesColor() throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let repeats = [#"{"at":0,"message":"Disk full","role":"error"}"#, #"{"at":1,"message":"Disk full","role":"error"}"#,
                       #"{"at":2,"message":"Disk low","role":"warning"}"#, #"{"at":3,"message":"Disk low","role":"warning"}"#,
                       #"{"at":4,"message":"Saved","role":"success"}"#]
        let dropped = try runBinary(["--format", "html"], stdin: repeats.joined(separator: "\n") + "\n")
        let path = directory + "/dropped.html"
        try dropped.stdout.write(toFile: path, atomically: true, encoding: .utf8)
        let dom = try chromium("--dump-dom", path).stdout
        let roleFills = try NSRegularExpression(pattern: #"data-role="(error|warning)" tabindex="0"><title>[^<]*</title><path d="[^"]*" fill="([a-z]+)""#)
            .matches(in: dom, range: NSRange(dom.startIndex..., in: dom))
            .map { String(dom[Range($0.range(at: 1), in: dom)!]) + " " + String(dom[Range($0.range(at: 2), in: dom)!]) }
        #expect(Set(roleFills) == ["error red", "warning orange"], "\(roleFills)")
        #expect(dom.contains("a dropped toast, in its role's color"))
        // A picture: an error dropped as a duplicate, colored as nothing else is.
        let events = [#"{"at":0,"message":"Disk full","role":"error"}"#, #"{"at":1,"message":"Disk full","role":"error"}"#,
                      #"{"at":9,"message":"ok"}"#].joined(separator: "\n") + "\n"
        let colored = try runBinary(["--format", "html", "-e", ##"role("error", { color = "#12ab34" }) rule(function(t) end)"##,
                                     "-e", "config{ stages = { 'rules', 'dedup', 'priority', 'announce' } }"], stdin: events)
        let picture = directory + "/drop.html"
        try colored.stdout.write(toFile: picture, atomically: true, encoding: .utf8)
        let shot = directory + "/drop.png"
        _ = try chromium("--screenshot='\(shot)' --window-size=1200,500", picture)
        // Without the style stage the bars are gray: the mark is the only thing of that color.
        #expect(colored.stdout.components(separatedBy: "#12ab34").count == 2)
        let pixels = try runShell("convert '\(shot)' -fill black +opaque '#12AB34' -fill white -opaque '#12AB34' "
                                  + "-format '%[fx:round(mean*w*h)]' info:").stdout
        #expect((Int(pixels) ?? 0) >= 30, "\(pixels) pixels of the mark's color")
    }

    /// With screens on, each screen has a lane of its own for its drops and for its waiting line.
    @Test func withScreensDropsAndTheWaitingLineHaveALanePerScreen() throws {
        let events = [#"{"at":0,"message":"a","user":"alice"}"#, #"{"at":0,"message":"a","user":"alice"}"#,
                      #"{"at":0,"message":"b","user":"alice"}"#, #"{"at":0,"message":"x","user":"bob"}"#,
                      #"{"at":1,"message":"x","user":"bob"}"#].joined(separator: "\n") + "\n"
        let result = try runBinary(["--format", "html", "-e", "config{ screens = { by = 'user' } }"], stdin: events)
        #expect(result.status == 0)
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/screens.html"
        try result.stdout.write(toFile: path, atomically: true, encoding: .utf8)
        let dom = try chromium("--dump-dom", path).stdout
        for label in [">[alice] drops<", ">[bob] drops<", ">[alice] waiting<", ">[bob] waiting<"] {
            #expect(dom.contains(label), "no lane \(label)")
        }
        #expect(!dom.contains(">drops: dedup<"))
    }
}
