import Testing
@testable import ToastCore
@testable import ToastIO
@testable import ToastPipeline
@testable import ToastCLI

/// `Record.members` (what hooks get as `info`) and the JSON encoder (what `--format json`
/// writes) describe the same fields in the same order, with the same values.
@Suite struct RecordMembersTests {
    static func full() -> Toast {
        var toast = Toast(id: "t1", message: "Saved \"a\"\n", subtitle: "12 photos", role: "success",
                          duration: .milliseconds(3_500), priority: 2, source: "editor",
                          extra: [JSONMember("n", .integer(3)), JSONMember("tags", .array([.string("x"), .null]))])
        // Every field the toast has no value of gets one, so a field that records carry
        // (`ToastField.presentRecord`) and that one of the two leaves out fails here.
        for field in ToastField.settable where toast.value(of: field) == .absent {
            switch field.kind {
            case .subtitle, .optionalText: toast.set(field, to: .text("a " + field.name))
            case .priority: toast.set(field, to: .integer(1))
            case .duration, .delay: toast.set(field, to: .time(1_250_000))
            default: break
            }
        }
        toast.style = AppliedStyle(symbol: "checkmark", glyph: "✔", color: "green")
        toast.announce(label: "Success")
        return toast
    }

    static func records() -> [Record] {
        let full = full()
        return [
        .present(full, at: 1, waited: 0),
        .present(Toast(id: "x", message: "sticky", duration: nil), at: 1_000_000_000 * StreamTime.perSecond, waited: 3_000_000),
        .dismiss(full, at: 4_500_001, reason: .longPress, shown: 3_500_001),
        .drop(full, at: 0, Drop(stage: "dedup", reason: .duplicate, of: "t0")),
        .drop(full, at: 2_250_000, Drop(stage: "rule", reason: .rule, rule: "quiet", note: "why \u{1}")),
        // A plugin's own stage and reason, which the JSON writer escapes (built-in ones it
        // writes as whole words).
        .drop(full, at: 3, Drop(stage: "cap \"per\" source", reason: "over\tlimit")),
        ]
    }

    @Test(arguments: 0..<6)
    func membersAreTheJSONRecordsFieldsInOrder(_ index: Int) throws {
        let record = Self.records()[index]
        var encoded = ByteBuffer()
        _ = JSONRecordEncoder().encode(record, into: &encoded)
        let parsed = try encoded.withBytes { bytes in
            var scanner = JSONScanner(bytes.assumingMemoryBound(to: UInt8.self))
            return try scanner.parseValue()
        }
        #expect(parsed == .object(record.members))
    }

    /// The JSON encoder writes a field that a row adds to records (general storage) from the
    /// field's kind alone: for every field, with a value and without, it writes what
    /// `Record.members` gives for a field records carry.
    @Test(arguments: ToastField.allCases)
    func aFieldOfAnyKindIsWrittenAsRecordMembersGiveIt(_ field: ToastField) throws {
        for toast in [Self.full(), Toast(id: "bare", message: "m", duration: nil)] {
            var encoded = ByteBuffer()
            encoded.appendLiteral("{\"_\":0")
            JSONRecordEncoder.appendMember(field, of: toast, to: &encoded)
            encoded.appendLiteral("}")
            let parsed = try encoded.withBytes { bytes in
                var scanner = JSONScanner(bytes.assumingMemoryBound(to: UInt8.self))
                return try scanner.parseValue()
            }
            let expected: JSONValue? = switch toast.value(of: field) {
            case .absent: PresentMember.valueWhenAbsent(of: field)
            case .text(let text): .string(text)
            case .time(let time): time % StreamTime.perSecond == 0
                ? .integer(time / StreamTime.perSecond) : .number(StreamTime.seconds(time))
            case .integer(let integer): .integer(Int64(integer))
            case .flag(let flag): .bool(flag)
            }
            let members = [JSONMember("_", .integer(0))] + (expected.map { [JSONMember(field.name, $0)] } ?? [])
            #expect(parsed == .object(members), "\(field.name) of \(toast.id)")
        }
    }
}
