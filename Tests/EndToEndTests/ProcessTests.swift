import Foundation
import Testing

/// What only a real process shows: exit statuses, pipes, signals and the wall clock.
@Suite struct ProcessTests {
    @Test func statusesOfTheWholeProcess() throws {
        #expect(try runBinary(["--help"]).status == 0)
        #expect(try runBinary(["--nope"]).status == 2)
        #expect(try runBinary(["/nonexistent.lua"]).status == 1)
        #expect(try runBinary([], stdin: "{\"message\":\"a\"}\nnot json\n").status == 65)
        #expect(try runBinary(["--format", "json"], stdin: "{\"message\":\"a\"}\n").status == 0)
    }

    @Test func helpGoesToStdoutAndErrorsToStderr() throws {
        let help = try runBinary(["--help"])
        #expect(help.stdout.hasPrefix("toastscript: run toast events"))
        #expect(help.stderr.isEmpty)
        let usage = try runBinary(["--colour", "never"])
        #expect(usage.stdout.isEmpty)
        #expect(usage.stderr == "toastscript: unknown option '--colour'; did you mean '--color'?\nUsage: toastscript [OPTIONS] [SCRIPT.lua ...] < events.jsonl\nSee 'toastscript --help'.\n")
    }

    @Test func aClosedPipeEndsQuietly() throws {
        let events = (0..<200_000).map { #"{"message":"m\#($0)","at":\#($0)}"# }.joined(separator: "\n")
        let path = NSTemporaryDirectory() + "toastscript-pipe-\(getpid()).jsonl"
        try events.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try runShell("'\(binary)' --format json --events '\(path)' | head -n 1; echo \"status ${PIPESTATUS[0]}\"")
        #expect(result.stdout.hasPrefix(#"{"event":"present","t":0,"id":"t1""#))
        #expect(result.stdout.hasSuffix("status 0\n"))
        #expect(result.stderr.isEmpty)
    }

    @Test func sigtermWritesEveryRecordWholeAndEndsEveryToast() throws {
        let directory = NSTemporaryDirectory() + "toastscript-signal-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let output = directory + "/out.jsonl"
        // Two events, then the input stays open: the run waits for more until the signal.
        let script = """
            mkfifo '\(directory)/in'
            '\(binary)' --clock stream --format json --output '\(output)' < '\(directory)/in' & pid=$!
            exec 3> '\(directory)/in'
            printf '{"message":"A"}\\n{"message":"B","at":1}\\n' >&3
            sleep 1; kill -TERM $pid; wait $pid; echo "status $?"; exec 3>&-
            """
        let result = try runShell(script)
        #expect(result.stdout == "status 143\n")
        let records = try String(contentsOfFile: output, encoding: .utf8)
        #expect(records.hasSuffix("\n"))
        let lines = records.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines.first?.hasPrefix(#"{"event":"present","t":0,"id":"t1","message":"A""#) == true)
        #expect(Array(lines.dropFirst()) == [
            #"{"event":"dismiss","t":1,"id":"t1","reason":"host_removed","shown":1}"#,
            #"{"event":"drop","t":1,"id":"t2","message":"B","role":"info","stage":"host","reason":"host_removed"}"#,
        ])
    }

    /// Scripts whose timers set themselves again would drain for ever: SIGTERM ends the drain.
    @Test func sigtermEndsADrainThatWouldNeverEnd() throws {
        let directory = NSTemporaryDirectory() + "toastscript-drain-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let script = """
            printf '{"message":"A"}\\n' > '\(directory)/in'
            # timeout passes the TERM on, and kills a drain that does not stop (137) after 20 s.
            timeout --signal=KILL 20 '\(binary)' --format json -e 'local function again() after(1, again) end after(1, again)' \\
                < '\(directory)/in' > /dev/null & pid=$!
            sleep 1; kill -TERM $pid; wait $pid; echo "status $?"
            """
        let result = try runShell(script)
        #expect(result.stdout == "status 143\n")
    }

    @Test func recordsOfALiveStreamAppearBeforeTheInputEnds() throws {
        let script = """
            (printf '{"message":"live"}\\n'; sleep 2; printf '{"type":"tap"}\\n') | '\(binary)' --format speech | while read -r line; do echo "$(date +%s.%N) $line"; done &
            start=$(date +%s.%N); wait; echo "start $start"
            """
        let result = try runShell(script)
        let lines = result.stdout.split(separator: "\n")
        let start = Double(lines.last?.split(separator: " ").last ?? "0") ?? 0
        let first = Double(lines.first?.split(separator: " ").first ?? "0") ?? 0
        #expect(lines.first?.hasSuffix(" live") == true)
        #expect(first - start < 1.5, "the present record was flushed while the input was still open")
    }

    @Test func theWallClockTimesEventsAndTimersInRealTime() throws {
        let script = """
            (printf '{"message":"A","duration":0.5,"at":999}\\n'; sleep 1; printf '{"message":"B","duration":0.3}\\n') | '\(binary)' --format json --clock wall
            """
        let result = try runShell(script)
        let records = result.stdout.split(separator: "\n").map(String.init)
        #expect(records.count == 4)
        func time(_ record: String) -> Double {
            Double(record.split(separator: ",")[1].split(separator: ":")[1]) ?? -1
        }
        #expect(records[0].contains(#""id":"t1""#) && time(records[0]) < 0.3)
        #expect(records[1].contains(#""reason":"timeout","shown":0.5"#))
        #expect(records[2].contains(#""id":"t2""#) && time(records[2]) >= 0.9 && time(records[2]) < 1.6)
        #expect(records[3].contains(#""reason":"timeout","shown":0.3"#))
    }

    /// SIGINT in the middle of a fast stream: the records reach the file whole, every toast
    /// that came in has its end, and the status is 130.
    @Test func sigintMidStreamLeavesNoTornLine() throws {
        let directory = NSTemporaryDirectory() + "toastscript-sigint-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let output = directory + "/out.jsonl"
        let script = """
            seq 1 100000000 | sed 's/.*/{"message":"m&","at":&}/' | '\(binary)' --clock stream --format json --output '\(output)' & pid=$!
            sleep 1; kill -INT $pid; wait $pid; echo "status $?"
            """
        let result = try runShell(script)
        #expect(result.stdout == "status 130\n")
        #expect(result.stderr.isEmpty)
        let records = try String(contentsOfFile: output, encoding: .utf8)
        #expect(records.hasSuffix("}\n"))
        let lines = records.split(separator: "\n")
        #expect(lines.count > 100, "the run was stopped while it was writing")
        #expect(lines.allSatisfy { $0.hasPrefix(#"{"event":""#) && $0.hasSuffix("}") })
        let presents = lines.filter { $0.hasPrefix(#"{"event":"present""#) }.count
        let dismisses = lines.filter { $0.hasPrefix(#"{"event":"dismiss""#) }.count
        #expect(presents == dismisses, "every presented toast was dismissed before the run ended")
    }

    /// The same with a recorded log, which is read and decoded on a second thread: the signal
    /// stops both, and what was written is whole.
    @Test func sigintWhileReadingAheadFromAFile() throws {
        let directory = NSTemporaryDirectory() + "toastscript-sigint-file-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let script = """
            seq 1 1000000 | sed 's/.*/{"message":"m&","at":&}/' > '\(directory)/events.jsonl'
            '\(binary)' --format json --events '\(directory)/events.jsonl' --output '\(directory)/out.jsonl' & pid=$!
            sleep 1; kill -INT $pid; wait $pid; echo "status $?"
            """
        let result = try runShell(script)
        #expect(result.stdout == "status 130\n")
        let lines = try String(contentsOfFile: directory + "/out.jsonl", encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.last == "", "the file ends with a whole line")
        #expect(lines.count > 100 && lines.count < 1_000_000, "stopped while writing")
        #expect(lines.dropLast().allSatisfy { $0.hasPrefix(#"{"event":""#) && $0.hasSuffix("}") })
    }

    /// A disk that fills up mid-run (a 64 KB tmpfs, which only root may mount).
    @Test(.enabled(if: getuid() == 0, "mounting a tmpfs needs root"))
    func aDiskThatFillsUpEndsWithStatusOneAndTheSystemsReason() throws {
        let directory = NSTemporaryDirectory() + "toastscript-full-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let mount = try runShell("mount -t tmpfs -o size=64k tmpfs '\(directory)'")
        try #require(mount.status == 0, "mount failed: \(mount.stderr)")
        defer { _ = try? runShell("umount '\(directory)'") }
        let result = try runShell("""
            seq 1 5000 | sed 's/.*/{"message":"m&","at":&}/' | '\(binary)' --clock stream --format json --output '\(directory)/out.jsonl'
            echo "status $?"
            """)
        #expect(result.stdout == "status 1\n")
        #expect(result.stderr == "toastscript: cannot write \(directory)/out.jsonl: No space left on device\n")
    }

    /// `--fsync` syncs the output file after its last write (seen with strace, which
    /// Scripts/setup installs for the tests); without it there is no fsync.
    @Test func fsyncSyncsTheOutputFileAfterItsLastWrite() throws {
        let directory = NSTemporaryDirectory() + "toastscript-fsync-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func syscalls(_ options: String) throws -> [String] {
            let trace = directory + "/trace\(options.count)"
            let run = try runShell("""
                echo '{"message":"a"}' | strace -y -e trace=write,fsync,fdatasync -o '\(trace)' \
                    '\(binary)' --clock stream --format json --output '\(directory)/out.jsonl' \(options)
                """)
            try #require(run.status == 0, "strace: \(run.stderr)")
            // `-y` names each descriptor's file: only the calls on the output file count.
            return try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
                .filter { $0.contains("out.jsonl>") }
                .map { String($0.prefix { $0 != "(" }) }
        }
        #expect(try syscalls("--fsync") == ["write", "fsync"])
        #expect(try syscalls("") == ["write"])
    }

    @Test func anUnwritableOutputFailsBeforeReadingAndAFullDiskIsReported() throws {
        let result = try runBinary(["--output", "/nonexistent/out.jsonl"], stdin: "{\"message\":\"a\"}\n")
        #expect(result.status == 1)
        #expect(result.stderr == "toastscript: cannot open /nonexistent/out.jsonl: No such file or directory\n")
        // Before reading: with an input that sends nothing for 3 s, it is done at once.
        let early = try runShell("""
            start=$(date +%s%N)
            '\(binary)' --output /nonexistent/out.jsonl 2>/dev/null < <(exec 2>/dev/null; sleep 3; echo '{"message":"a"}')
            echo "status $? after $((($(date +%s%N) - start) / 1000000)) ms"
            """)
        let parts = early.stdout.split(separator: " ")
        #expect(parts.count == 5 && parts[1] == "1")
        #expect((Int(parts.dropFirst(3).first ?? "") ?? .max) < 2_000, "\(early.stdout)")
        let full = try runBinary(["--format", "json", "--output", "/dev/full"], stdin: "{\"message\":\"a\"}\n")
        #expect(full.status == 1)
        #expect(full.stderr == "toastscript: cannot write /dev/full: No space left on device\n")
        // From a file on the stream clock the records are written on a thread of their own: the
        // failure is the same, and the run stops soon after it.
        let path = NSTemporaryDirectory() + "toastscript-full-\(getpid()).jsonl"
        try (0..<50_000).map { #"{"message":"m\#($0)","at":\#($0)}"# }.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let fullFromFile = try runBinary(["--format", "json", "--stats", "--output", "/dev/full", "--events", path])
        #expect(fullFromFile.status == 1)
        #expect(fullFromFile.stderr.hasSuffix("toastscript: cannot write /dev/full: No space left on device\n"))
        let eventsLine = fullFromFile.stderr.split(separator: "\n").first { $0.hasPrefix("  events ") }
        #expect((Int(eventsLine?.split(separator: " ").last ?? "") ?? .max) < 10_000, "\(fullFromFile.stderr)")
    }
}

/// Runs a bash command line from the package root.
func runShell(_ command: String) throws -> BinaryResult {
    let process = Process()
    // The test process runs with some signals blocked, and a child inherits that mask: bash
    // cannot unblock them, so a small exec step clears it first (and gives back the default
    // SIGPIPE and SIGXFSZ that Python ignores). Without it a `dbus-daemon` that
    // `dbus-run-session` ends with SIGTERM would never go away.
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", """
        import os, signal, sys
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        for ignored in (signal.SIGPIPE, signal.SIGXFSZ):  # Python ignores these; a shell does not
            signal.signal(ignored, signal.SIG_DFL)
        os.execv("/bin/bash", ["bash", "-c", sys.argv[1]])
        """, command]
    process.currentDirectoryURL = URL(fileURLWithPath: root)
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let (outputData, errorData) = readBoth(output, errors)
    process.waitUntilExit()
    return BinaryResult(status: process.terminationStatus, stdout: String(decoding: outputData, as: UTF8.self),
                        stderr: String(decoding: errorData, as: UTF8.self))
}
