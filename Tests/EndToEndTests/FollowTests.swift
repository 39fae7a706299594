import Foundation
import Testing

/// `--follow FILE` against real files that a shell writes, renames and truncates while the
/// binary follows them, as logrotate and a logging program would: every line is read once,
/// in the order written, and a run killed with SIGKILL and started again on its state, with
/// rotations while it was down, writes what one run that never stopped writes.
@Suite(.serialized) struct FollowTests {
    /// Runs `body` (bash) in a fresh folder (`$dir`), with `$bin` the binary and helpers:
    /// `line N` appends event N to the file named next (its time N × 10 s); `waitfor TEXT
    /// FILE` waits until FILE holds TEXT. Returns stdout, and the folder's `out` and `err`.
    private func inFolder(_ body: String) throws -> (stdout: String, out: String, err: String) {
        let directory = NSTemporaryDirectory() + "toastscript-follow-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let script = """
            dir='\(directory)'; bin='\(binary)'; cd "$dir"
            line() { echo "{\\"message\\":\\"m$1\\",\\"at\\":$(( $1 * 10 )),\\"duration\\":4}" >> "$2"; }
            waitfor() { for i in $(seq 500); do grep -q "$1" "$2" 2>/dev/null && return; sleep 0.01; done; echo "never: $1 in $2"; }
            \(body)
            """
        let result = try runShell(script)
        let out = (try? String(contentsOfFile: directory + "/out", encoding: .utf8)) ?? ""
        let err = (try? String(contentsOfFile: directory + "/err", encoding: .utf8)) ?? ""
        return (result.stdout, out, err)
    }

    /// The messages of the `present` records, in order.
    private func presented(_ records: String) -> [String] {
        records.split(separator: "\n").filter { $0.contains(#""event":"present""#) }.compactMap { record in
            record.range(of: #""message":""#).map { String(record[$0.upperBound...].prefix { $0 != "\"" }) }
        }
    }

    @Test func everyLineIsReadOnceThroughAppendsRotationsAndATruncation() throws {
        let run = try inFolder("""
            line 1 log
            "$bin" --follow log --format json --output out 2> err & pid=$!
            waitfor '"m1"' out
            line 2 log
            waitfor '"m2"' out
            # logrotate's way: FILE renamed, the program still writing to it, then a new FILE.
            mv log log.1
            line 3 log.1
            line 4 log
            line 5 log
            waitfor '"m5"' out
            # copytruncate's way: FILE copied, then emptied in place and written again.
            cp log log.2
            : > log
            line 6 log
            waitfor '"m6"' out
            line 7 log
            waitfor '"m7"' out
            kill -TERM $pid; wait $pid; echo "status $?"
            """)
        #expect(run.stdout == "status 143\n", "\(run.stdout) \(run.err)")
        #expect(presented(run.out) == (1...7).map { "m\($0)" }, "\(run.out)")
        #expect(run.err == """
            toastscript: note: --follow log was rotated: the old file was read to its end; reading the new one from its start
            toastscript: note: --follow log was truncated (copied and emptied, or written again); reading it again from its start

            """, "\(run.err)")
    }

    @Test func aFileThatIsNotThereYetIsWaitedFor() throws {
        let run = try inFolder("""
            "$bin" --follow later.jsonl --format json --output out 2> err & pid=$!
            waitfor 'waiting' err
            line 1 later.jsonl
            waitfor '"m1"' out
            kill -TERM $pid; wait $pid; echo "status $?"
            """)
        #expect(run.stdout == "status 143\n", "\(run.stdout)")
        #expect(presented(run.out) == ["m1"])
        #expect(run.err == """
            toastscript: note: --follow later.jsonl does not exist yet; waiting for it (as tail -F does)
            toastscript: note: --follow later.jsonl is there now; reading it from its start

            """, "\(run.err)")
    }

    /// The file a state was reading, gone from FILE's folder while toastscript was down: a note
    /// says from which byte on it is lost, and FILE is read from its start.
    @Test func aFileGoneWhileDownIsNamedAndFileIsReadFromItsStart() throws {
        let run = try inFolder("""
            for n in 1 2; do line $n log; done
            "$bin" --follow log --state st --format json --output out 2> err & pid=$!
            waitfor '"m2"' out; kill -TERM $pid; wait $pid
            mkdir elsewhere; mv log elsewhere/log.1
            line 3 log
            "$bin" --follow log --state st --format json --output out 2>> err & pid=$!
            waitfor '"m3"' out; kill -TERM $pid; wait $pid; echo "status $?"
            """)
        #expect(run.stdout == "status 143\n", "\(run.err)")
        #expect(presented(run.out) == ["m1", "m2", "m3"])
        let offset = 2 * #"{"message":"m1","at":10,"duration":4}"#.utf8.count + 2
        #expect(run.err.contains("toastscript: note: --follow log: the file it was reading when the state was saved (inode ")
                && run.err.contains(") is gone from its folder; what was written to it after byte \(offset) is lost: 0 bytes read then "
                                    + "and not yet taken, and whatever was written to it since; reading log from its start\n"), "\(run.err)")
    }

    /// A file (or journal file) the run may not read stops it with the system's reason, as
    /// any user but root meets it (the test drops root with setpriv).
    @Test func aFileItMayNotReadIsNamedWithTheReason() throws {
        let run = try inFolder("""
            line 1 secret.jsonl; chmod 600 secret.jsonl; chmod 755 "$dir"
            setpriv --reuid=65534 --regid=65534 --clear-groups "$bin" --follow "$dir/secret.jsonl" 2>&1; echo "status $?"
            cp secret.jsonl secret.journal
            setpriv --reuid=65534 --regid=65534 --clear-groups "$bin" --journal --journal-file "$dir/secret.journal" --once 2>&1
            echo "status $?"
            """)
        let folder = run.stdout.components(separatedBy: "--follow ").dropFirst().first?.components(separatedBy: "/secret").first ?? ""
        #expect(run.stdout == """
            toastscript: cannot open --follow \(folder)/secret.jsonl: Permission denied
            status 1
            toastscript: cannot open --journal-file \(folder)/secret.journal: Permission denied
            status 1

            """, "\(run.stdout)")
    }

    @Test func aDirectoryAndOptionsThatCannotGoWithItAreRefused() throws {
        let folder = try runBinary(["--follow", "/tmp"])
        #expect(folder.status == 1)
        #expect(folder.stderr == "toastscript: --follow /tmp is a directory; it follows one file\n")
        for (arguments, message) in [
            (["--events", "e.jsonl"], "--follow reads the events; --events cannot be given with it"),
            (["--clock", "stream"], "--follow reads on the follow clock; --clock stream cannot be given with it"),
            (["--format", "html"], "--follow never reaches an end; --format html draws its page at the end of a run"),
        ] {
            let run = try runBinary(["--follow", "log.jsonl"] + arguments)
            #expect(run.status == 2)
            #expect(run.stderr.hasPrefix("toastscript: \(message)\n"), "\(run.stderr)")
        }
    }

    /// SPEC 11.4's law through rotations: runs killed with SIGKILL and started again on their
    /// state, FILE rotated (renamed, the old file written on, a new FILE) while each was down,
    /// write the records of one run that never stopped over every line in the order written.
    @Test func runsKilledWithRotationsWhileDownWriteWhatOneRunWrites() throws {
        let run = try inFolder("""
            follow() { "$bin" --follow "$1" --state "$1.state" --checkpoint 0.1 --format json --output "$2" 2>> err & pid=$!; }
            # The one run that never stopped, over every line in the order the others write them.
            for n in $(seq 1 16); do line $n all; done
            follow all reference
            waitfor '"m16"' reference
            kill -TERM $pid; wait $pid
            # The same lines, with a kill after each part and a rotation while it is down.
            for n in 1 2 3 4; do line $n log; done
            follow log out
            waitfor '"m4"' out; sleep 0.3; kill -KILL $pid; wait $pid
            mv log log.1; line 5 log.1; line 6 log.1
            for n in 7 8; do line $n log; done
            follow log out
            waitfor '"m8"' out
            for n in 9 10; do line $n log; done
            waitfor '"m10"' out; sleep 0.3; kill -KILL $pid; wait $pid
            mv log log.2; line 11 log.2
            mv log.1 log.old
            for n in 12 13; do line $n log; done
            follow log out
            for n in 14 15 16; do line $n log; done
            waitfor '"m16"' out; sleep 0.3
            kill -TERM $pid; wait $pid; echo "status $?"
            cat reference
            """)
        #expect(run.stdout.hasPrefix("status 143\n"), "\(run.stdout) \(run.err)")
        let reference = String(run.stdout.dropFirst("status 143\n".count))
        #expect(presented(reference) == (1...16).map { "m\($0)" }, "\(reference)")
        #expect(run.out == reference, "\(run.err)")
        #expect(run.err.contains("toastscript: note: --follow log was rotated while toastscript was down: reading "), "\(run.err)")
    }

    /// `--multiline` keeps the law: a run killed while it holds an event whose trace has not
    /// all come yet saved the position of that event's first line, so the run started again
    /// reads the whole event and writes what one run that never stopped writes.
    @Test func aRunKilledWhileItHoldsATraceGoesOnFromTheTracesFirstLine() throws {
        let run = try inFolder("""
            first() { printf 'time=%d level=error msg="fail %d" duration=4\\n' $(( $1 * 10 )) $1 >> "$2"; }
            frames() { printf '\\tat a.B.c(B.java:%d)\\n\\tat a.D.e(D.java:%d)\\n' $1 $1 >> "$2"; }
            follow() { "$bin" --follow "$1" --input logfmt --multiline --state "$1.state" --checkpoint 0.1 --format json --output "$2" 2>> err & pid=$!; }
            for n in $(seq 1 5); do first $n all; frames $n all; done
            follow all reference
            waitfor 'fail 5' reference
            kill -TERM $pid; wait $pid
            # The same lines: killed after fail 2's first line came, before its frames.
            first 1 log; frames 1 log; first 2 log
            follow log out
            waitfor 'fail 1' out; sleep 0.2; kill -KILL $pid; wait $pid
            grep -q 'fail 2' out && echo "fail 2 was handed on before the kill"
            frames 2 log
            for n in 3 4 5; do first $n log; frames $n log; done
            follow log out
            waitfor 'fail 5' out; sleep 0.2
            kill -TERM $pid; wait $pid; echo "status $?"
            cat reference
            """)
        // (Held for half a second of quiet: killed within it, the run still held fail 2.)
        #expect(run.stdout.hasPrefix("status 143\n"), "\(run.stdout) \(run.err)")
        let reference = String(run.stdout.dropFirst("status 143\n".count))
        #expect(presented(reference) == (1...5).map { "fail \($0)\\n\\tat a.B.c(B.java:\($0))\\n\\tat a.D.e(D.java:\($0))" },
                "\(reference)")
        #expect(run.out == reference, "\(run.err)")
    }
}
