import Foundation
import Testing

/// `--desktop` against a real notification server: dunst on a virtual X screen (Xvfb), on a
/// private session bus (`dbus-run-session`), so nothing of the machine's own desktop is touched.
/// `Scripts/setup --test` installs dbus, xvfb, dunst and imagemagick; these tests need them.
@Suite(.serialized) struct DesktopTests {
    /// Runs `body` (bash) on a private bus with dunst running on its own X screen; `$bin` is the
    /// binary, `$dir` a scratch directory, `$fifo` a FIFO in it, `ms` prints milliseconds.
    /// `withoutActivation`: a bus that starts no service on demand, so a server that is gone
    /// stays gone (the default session bus would start dunst again through its service file).
    private func onDesktop(_ body: String, withoutActivation: Bool = false) throws -> BinaryResult {
        let directory = NSTemporaryDirectory() + "toastscript-desktop-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let script = directory + "/session.sh"
        try """
            bin='\(binary)'; dir='\(directory)'; fifo="$dir/in"; mkfifo "$fifo"
            ms() { echo $(( $(date +%s%N) / 1000000 )); }
            dunst > "$dir/dunst.log" 2>&1 &
            for i in $(seq 100); do
              dbus-send --session --print-reply --dest=org.freedesktop.DBus / org.freedesktop.DBus.NameHasOwner \\
                string:org.freedesktop.Notifications 2>/dev/null | grep -q true && break
              sleep 0.05
            done
            \(body)
            """.write(toFile: script, atomically: true, encoding: .utf8)
        var session = "dbus-run-session"
        if withoutActivation {
            try """
                <busconfig>
                  <type>session</type>
                  <listen>unix:tmpdir=/tmp</listen>
                  <auth>EXTERNAL</auth>
                  <policy context="default">
                    <allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/>
                  </policy>
                </busconfig>
                """.write(toFile: directory + "/bus.conf", atomically: true, encoding: .utf8)
            session += " --config-file '\(directory)/bus.conf'"
        }
        return try runShell("\(session) -- xvfb-run -a -s '-screen 0 800x600x24' bash '\(script)' 2>&1 | grep -v 'fd limit'")
    }

    @Test func aToastAppearsWithItsFieldsAndAUserCloseIsATapThatShowsTheNext() throws {
        let run = try onDesktop("""
            "$bin" --clock stream --desktop --format json --output "$dir/out" < "$fifo" 2> "$dir/err" & pid=$!
            exec 3> "$fifo"
            printf '%s\\n' '{"message":"Upload failed","subtitle":"Tap to retry","role":"error","source":"uploads","duration":null}' \\
                           '{"message":"Saved","role":"success"}' >&3
            for i in $(seq 100); do grep -q '"present"' "$dir/out" 2>/dev/null && break; sleep 0.02; done
            echo "shown: $(dunstctl count displayed)"
            before=$(ms); dunstctl close
            for i in $(seq 200); do grep -q '"reason":"tap"' "$dir/out" && break; sleep 0.01; done
            echo "tap after: $(( $(ms) - before ))"
            for i in $(seq 100); do grep -q '"id":"t2"' "$dir/out" && break; sleep 0.02; done
            echo "shown: $(dunstctl count displayed)"
            dunstctl history > "$dir/history.json"
            python3 -c '
            import json, sys
            entry = json.load(open(sys.argv[1]))["data"][0][0]
            print("history:", *(entry[k]["data"] for k in ("summary", "body", "appname")))' "$dir/history.json"
            exec 3>&-
            wait $pid; echo "status $?"
            cat "$dir/out" "$dir/err"
            """)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "shown: 1", "\(run.stdout)")
        let tapAfter = lines.first { $0.hasPrefix("tap after: ") }.flatMap { Int($0.dropFirst(11)) } ?? 9999
        #expect(tapAfter < 1000, "the tap came back within a second: \(run.stdout)")
        #expect(lines.contains("shown: 1"))
        #expect(lines.contains("history: Upload failed Tap to retry uploads"), "\(run.stdout)")
        #expect(lines.contains("status 0"))
        #expect(lines.contains(#"{"event":"dismiss","t":0,"id":"t1","reason":"tap","shown":0}"#), "\(run.stdout)")
        #expect(lines.contains { $0.hasPrefix(#"{"event":"present","t":0,"id":"t2","message":"Saved""#) })
    }

    @Test func aClickOnTheDefaultActionIsATapAndTheNotificationCloses() throws {
        let run = try onDesktop("""
            "$bin" --clock stream --desktop --format json --output "$dir/out" < "$fifo" & pid=$!
            exec 3> "$fifo"
            echo '{"message":"Click me","duration":null,"dismiss_on_tap":false}' >&3
            for i in $(seq 100); do grep -q '"present"' "$dir/out" 2>/dev/null && break; sleep 0.02; done
            dunstctl action 0
            for i in $(seq 100); do grep -q '"reason":"tap"' "$dir/out" && break; sleep 0.01; done
            sleep 0.2
            echo "shown: $(dunstctl count displayed)"
            exec 3>&-
            wait $pid; echo "status $?"
            grep -c '"event"' "$dir/out"; tail -n 1 "$dir/out"
            """)
        #expect(run.stdout == """
            shown: 0
            status 0
            2
            {"event":"dismiss","t":0,"id":"t1","reason":"tap","shown":0}

            """, "the default action (ActionInvoked) is a tap, whatever dismiss_on_tap says")
    }

    @Test func aTimeoutClosesTheNotificationAndReplaceTakesItsPlace() throws {
        let run = try onDesktop("""
            "$bin" --desktop --clock wall --format json --output "$dir/out" < "$fifo" & pid=$!
            exec 3> "$fifo"
            echo '{"message":"First","duration":null}' >&3
            sleep 0.4
            echo '{"message":"Second takes its place","policy":"replace","duration":0.5}' >&3
            sleep 0.2
            echo "while shown: $(dunstctl count displayed)"
            sleep 0.8
            echo "after the timeout: $(dunstctl count displayed) shown, $(dunstctl count history) closed"
            dunstctl history | grep -A2 '"summary"' | grep data
            exec 3>&-
            wait $pid; echo "status $?"
            grep -o '"id":"t[12]","reason":"[a-z]*"' "$dir/out"
            """)
        #expect(run.stdout == """
            while shown: 1
            after the timeout: 0 shown, 1 closed
            \t\t\t\t\t"data" : "Second takes its place"
            status 0
            "id":"t1","reason":"replacement"
            "id":"t2","reason":"timeout"

            """, "replaced in place (one notification, never closed), then closed at its timeout")
    }

    /// A sticky info is on screen when an error arrives: the host preempts it, and its
    /// notification is closed before the error's is shown.
    @Test func aPreemptedStickyToastsNotificationCloses() throws {
        let run = try onDesktop("""
            "$bin" --desktop --clock wall --format json --output "$dir/out" < "$fifo" & pid=$!
            exec 3> "$fifo"
            echo '{"message":"Syncing","duration":null}' >&3
            sleep 0.4
            echo "sticky: $(dunstctl count displayed) shown"
            echo '{"message":"Sync failed","role":"error","duration":0.5}' >&3
            sleep 0.25
            echo "with the error: $(dunstctl count displayed) shown, $(dunstctl count history) closed"
            dunstctl history | grep -A2 '"summary"' | grep data
            exec 3>&-
            wait $pid; echo "status $?"
            grep -o '"id":"t[12]","reason":"[a-z]*"' "$dir/out"
            """)
        #expect(run.stdout == """
            sticky: 1 shown
            with the error: 1 shown, 1 closed
            \t\t\t\t\t"data" : "Syncing"
            status 0
            "id":"t1","reason":"preempted"
            "id":"t2","reason":"timeout"

            """, "the sticky notification closed by the preemption, the error's shown")
    }

    @Test func aFileWithoutAClockPlaysAtItsOwnPaceWithANote() throws {
        // Two toasts 0.6 s apart on the stream clock: replayed, the second is not yet shown at 0.3 s.
        let run = try onDesktop("""
            printf '%s\\n' '{"message":"First","duration":0.5}' '{"at":0.6,"message":"Second","duration":0.3}' > "$dir/events.jsonl"
            start=$(ms)
            "$bin" --desktop --format json --output "$dir/out" --events "$dir/events.jsonl" 2> "$dir/err" & pid=$!
            sleep 0.3
            echo "at 0.3 s: $(grep -c '"present"' "$dir/out" 2>/dev/null)"
            wait $pid; echo "status $?"
            took=$(( $(ms) - start )); [ $took -ge 850 ] && echo "took at least 0.85 s" || echo "took $took ms"
            cat "$dir/err"
            grep -c '"present"' "$dir/out"
            """)
        #expect(run.stdout == """
            at 0.3 s: 1
            status 0
            took at least 0.85 s
            toastscript: note: --desktop on a file plays it at its own pace, as --clock replay does (add --clock replay --speed 10 to play it faster, --clock stream to show it all at once)
            2

            """)
    }

    @Test func withoutAServerOrABusItStopsBeforeReadingInput() throws {
        let noServer = try runShell("""
            echo '{"message":"a"}' | dbus-run-session -- '\(binary)' --clock stream --desktop 2>&1 | grep -v 'fd limit'; echo "status ${PIPESTATUS[1]}"
            """)
        #expect(noServer.stdout.hasPrefix("toastscript: --desktop: no notification server on the session bus (DBUS_SESSION_BUS_ADDRESS="),
                "\(noServer.stdout)")
        #expect(noServer.stdout.hasSuffix("start one (dunst, mako, a desktop's own), or leave out --desktop\nstatus 1\n"))
        let noBus = try runShell("""
            echo '{"message":"a"}' | env -u DBUS_SESSION_BUS_ADDRESS XDG_RUNTIME_DIR=/nonexistent '\(binary)' --clock stream --desktop; echo "status $?"
            """)
        #expect(noBus.stdout == "status 1\n")
        #expect(noBus.stderr == "toastscript: --desktop: no session bus (DBUS_SESSION_BUS_ADDRESS is not set, and there is no $XDG_RUNTIME_DIR/bus)\n")
        let deadBus = try runShell("""
            echo '{"message":"a"}' | DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent/bus '\(binary)' --clock stream --desktop; echo "status $?"
            """)
        #expect(deadBus.stdout == "status 1\n")
        #expect(deadBus.stderr.hasPrefix("toastscript: --desktop: no session bus (DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent/bus): "),
                "\(deadBus.stderr)")
    }

    @Test func aServerThatGoesAwayIsAWarningAndTheRecordsGoOn() throws {
        let run = try onDesktop("""
            "$bin" --clock stream --desktop --format json --output "$dir/out" < "$fifo" 2> "$dir/err" & pid=$!
            exec 3> "$fifo"
            echo '{"message":"Before","duration":null}' >&3
            for i in $(seq 100); do grep -q '"present"' "$dir/out" 2>/dev/null && break; sleep 0.02; done
            pkill -x dunst; sleep 0.3
            echo '{"message":"After","policy":"replace","at":1}' >&3
            exec 3>&-
            wait $pid; echo "status $?"
            cat "$dir/err"; grep -c '"event"' "$dir/out"
            """, withoutActivation: true)
        #expect(run.stdout.hasPrefix("status 0\ntoastscript: warning: --desktop: the notification server did not take a notification ("),
                "\(run.stdout)")
        #expect(run.stdout.hasSuffix("); the records go on without the desktop\n4\n"), "\(run.stdout)")
    }

    /// dunst's history does not keep the urgency, but its default look shows it: a critical
    /// notification is dark red (#900000 on a #ff0000 frame), a low one gray (#222222).
    @Test(arguments: [("error", "critical"), ("success", "low")])
    func theScreenShowsTheToastInItsUrgencysColors(role: String, urgency: String) throws {
        let run = try onDesktop("""
            "$bin" --desktop --clock wall --no-drain < "$fifo" > /dev/null & pid=$!
            exec 3> "$fifo"
            echo '{"message":"Upload complete","subtitle":"12 photos","role":"\(role)","source":"photos"}' >&3
            sleep 0.5
            import -window root "$dir/screen.png"
            convert "$dir/screen.png" -crop 300x30+480+60 -format '%[fx:mean.r] %[fx:mean.g] %[fx:mean.b]' info:; echo
            exec 3>&-
            wait $pid
            """)
        let channels = run.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Double($0) }
        #expect(channels.count == 3, "\(run.stdout)")
        guard channels.count == 3 else { return }
        let (red, green, blue) = (channels[0], channels[1], channels[2])
        if urgency == "critical" {
            #expect(red > 0.3 && green < 0.15 && blue < 0.15, "dark red: \(channels)")
        } else {
            #expect(red > 0.05 && abs(red - green) < 0.05 && abs(red - blue) < 0.05, "gray: \(channels)")
        }
    }
}
