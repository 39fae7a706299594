/// `--format json`: one JSON object per record, fields in the order of docs/events.md, "Records", optional
/// fields left out when they have no value.
package struct JSONRecordEncoder: RecordEncoder {
    package init() {}

    package func encode(_ record: Record, into out: inout ByteBuffer) -> Bool {
        switch record {
        case .present(let toast, let at, let waited):
            out.appendLiteral(#"{"event":"present","t":"#)
            StreamTime.append(at, to: &out)
            screen(of: toast, &out)
            field(#","id":""#, toast.id, &out)
            for member in ToastField.presentRecord { append(member, of: toast, waited: waited, to: &out) }
        case .dismiss(let toast, let at, let reason, let shown):
            out.appendLiteral(#"{"event":"dismiss","t":"#)
            StreamTime.append(at, to: &out)
            screen(of: toast, &out)
            field(#","id":""#, toast.id, &out)
            out.appendLiteral(Self.member(reason))
            out.appendLiteral(#","shown":"#)
            StreamTime.append(shown, to: &out)
        case .drop(let toast, let at, let drop):
            out.appendLiteral(#"{"event":"drop","t":"#)
            StreamTime.append(at, to: &out)
            screen(of: toast, &out)
            field(#","id":""#, toast.id, &out)
            field(#","stage":""#, drop.stage, &out)
            field(#","reason":""#, drop.reason.rawValue, &out)
            if let rule = drop.rule { field(#","rule":""#, rule, &out) }
            if let of = drop.of { field(#","of":""#, of, &out) }
            if let by = drop.by { field(#","by":""#, by, &out) }
            if let into = drop.into { field(#","into":""#, into, &out) }
            if let note = drop.note { field(#","note":""#, note, &out) }
        }
        out.appendLiteral("}\n")
        return true
    }

    /// `{"event":"trace","t":…,"id":…,"stage":…,"verdict":…}` with the rule, the changed
    /// fields, the details and the reason in words when there are any.
    package func encode(_ trace: TraceRecord, into out: inout ByteBuffer) -> Bool {
        out.appendLiteral(#"{"event":"trace","t":"#)
        StreamTime.append(trace.time, to: &out)
        screen(of: trace.toast, &out)
        field(#","id":""#, trace.toast.id, &out)
        field(#","stage":""#, trace.stage, &out)
        field(#","verdict":""#, trace.verdict.rawValue, &out)
        if let rule = trace.rule { field(#","rule":""#, rule, &out) }
        if !trace.changedFields.isEmpty {
            out.appendLiteral(#","fields":"#)
            JSONText.appendValue(.array(trace.changedFields.map(JSONValue.string)), to: &out)
        }
        for detail in trace.details {
            out.append(UInt8(ascii: ","))
            JSONText.appendString(detail.name, to: &out)
            out.append(UInt8(ascii: ":"))
            JSONText.appendValue(detail.value, to: &out)
        }
        if let because = trace.because { field(#","because":""#, because, &out) }
        out.appendLiteral("}\n")
        return true
    }

    /// One member of a `present` record (`ToastField.presentRecord`).
    private func append(_ member: PresentMember, of toast: Toast, waited: Microseconds, to out: inout ByteBuffer) {
        switch member {
        // The fields every `present` carries, straight from the toast; any other through the
        // schema (`Toast.withValue`), which costs more.
        case .field(.message): toast.withMessageBytes { field(#","message":""#, $0, &out) }
        case .field(.subtitle): toast.withSubtitleBytes { field(#","subtitle":""#, $0, &out) }
        case .field(.role): field(#","role":""#, toast.role, &out)
        case .field(.placement): field(#","placement":""#, toast.placement.rawValue, &out)
        case .field(.policy): field(#","policy":""#, toast.policy.rawValue, &out)
        case .field(.source): if let source = toast.source { field(#","source":""#, source, &out) }
        case .field(let field):
            toast.withValue(of: field) { value in
                switch value {
                case .absent:
                    guard let standIn = PresentMember.valueWhenAbsent(of: field) else { return }
                    name(field, &out)
                    JSONText.appendValue(standIn, to: &out)
                case .text(let bytes):
                    name(field, &out)
                    out.append(UInt8(ascii: "\""))
                    JSONText.appendEscaped(bytes, to: &out)
                    out.append(UInt8(ascii: "\""))
                case .time(let time):
                    name(field, &out)
                    StreamTime.append(time, to: &out)
                case .integer(let integer):
                    name(field, &out)
                    JSONText.appendValue(.integer(Int64(integer)), to: &out)
                case .flag(let flag):
                    name(field, &out)
                    out.appendLiteral(flag ? "true" : "false")
                }
            }
        case .symbol: field(#","symbol":""#, toast.style?.symbol ?? "", &out)
        case .glyph: field(#","glyph":""#, toast.style?.glyph ?? "", &out)
        case .color: field(#","color":""#, toast.style?.color ?? "", &out)
        case .announcement:
            out.appendLiteral(#","announcement":""#)
            toast.appendEscapedAnnouncement(to: &out)
            out.append(UInt8(ascii: "\""))
        case .waited:
            out.appendLiteral(#","waited":"#)
            StreamTime.append(waited, to: &out)
        case .extra:
            // Extra fields kept as text already written as they would be go out as they are.
            let wroteText = toast.withExtraText { text -> Bool in
                guard JSONText.isCanonicalObject(text) else { return false }
                out.appendLiteral(#","extra":"#)
                out.append(text)
                return true
            } ?? false
            if !wroteText && !toast.extra.isEmpty {
                out.appendLiteral(#","extra":"#)
                JSONText.appendObject(toast.extra, to: &out)
            }
        }
    }

    /// `,"name":` of `field`.
    private func name(_ field: ToastField, _ out: inout ByteBuffer) {
        Self.openings[field.rawValue].withUnsafeBytes { out.append($0) }
    }

    /// `,"name":` of every field, by `ToastField.rawValue`, written once.
    private static let openings: [[UInt8]] = ToastField.allCases.map { field in
        var opening: [UInt8] = [UInt8(ascii: ",")]
        JSONText.appendString(field.name, to: &opening)
        opening.append(UInt8(ascii: ":"))
        return opening
    }

    /// `"screen":…` when screens are on (docs/events.md, "Screens").
    @inline(__always)
    private func screen(of toast: Toast, _ out: inout ByteBuffer) {
        guard let screen = toast.screenKey else { return }
        out.appendLiteral(#","screen":"#)
        JSONText.appendValue(screen.jsonValue, to: &out)
    }

    // The members whose values are a closed set of words, written whole: nothing to escape.

    private static func member(_ reason: DismissReason) -> StaticString {
        switch reason {
        case .timeout: #","reason":"timeout""#
        case .tap: #","reason":"tap""#
        case .longPress: #","reason":"long_press""#
        case .swipe: #","reason":"swipe""#
        case .programmatic: #","reason":"programmatic""#
        case .replacement: #","reason":"replacement""#
        case .hostRemoved: #","reason":"host_removed""#
        }
    }

    /// Appends a string member; `opening` is the text before the value, `,"name":"`, in one
    /// literal, so a member costs three appends rather than six.
    private func field(_ opening: StaticString, _ value: String, _ out: inout ByteBuffer) {
        out.appendLiteral(opening)
        JSONText.appendEscaped(value, to: &out)
        out.append(UInt8(ascii: "\""))
    }

    /// A string member whose value is the UTF-8 `bytes` (a toast's stored text).
    private func field(_ opening: StaticString, _ bytes: UnsafeRawBufferPointer, _ out: inout ByteBuffer) {
        out.appendLiteral(opening)
        JSONText.appendEscaped(bytes, to: &out)
        out.append(UInt8(ascii: "\""))
    }
}
