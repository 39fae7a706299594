import ToastCore

/// `--format json`: one JSON object per record, fields in the order of docs/events.md, "Records", optional
/// fields left out when they have no value.
package struct JSONRecordEncoder: RecordEncoder {
    package init() {}

    package func encode(_ record: Record, into out: inout ByteBuffer) -> Bool {
        switch record {
        case .present(let toast, let at, let waited):
            // The members of `ToastField.presentRecord`, written straight from the toast (a loop
            // over that list made every present slower); a test holds this to `Record.members`,
            // which follows the list.
            out.appendLiteral(#"{"event":"present","t":"#)
            StreamTime.append(at, to: &out)
            screen(of: toast, &out)
            field(#","id":""#, toast.id, &out)
            // Where the escaped message and subtitle are written: the announcement repeats them.
            let message = toast.withMessageBytes { escapedField(#","message":""#, $0, &out) }
            let subtitle = toast.withSubtitleBytes { escapedField(#","subtitle":""#, $0, &out) }
            if let member = Self.roleMember(toast.role) {
                out.appendLiteral(member)
            } else {
                field(#","role":""#, toast.role, &out)
            }
            out.appendLiteral(Self.member(toast.placement))
            out.appendLiteral(Self.member(toast.policy))
            out.appendLiteral(#","priority":"#)
            JSONText.appendValue(.integer(Int64(toast.priority ?? 0)), to: &out)
            out.appendLiteral(#","duration":"#)
            if let duration = toast.durationMicros {
                StreamTime.append(duration, to: &out)
            } else {
                out.appendLiteral("null")
            }
            if let style = toast.style {
                style.withJSONMembers { out.append($0) }
            } else {
                out.appendLiteral(#","symbol":"","glyph":"","color":"""#)
            }
            out.appendLiteral(#","announcement":""#)
            switch toast.announcementForm {
            case nil: break
            case .text(let text)?: JSONText.appendEscaped(text, to: &out)
            case .standard(let label)?:
                // `label: message, subtitle`, the two copied as written above (JSON escapes byte
                // by byte, so the escaped parts make the escaped whole).
                if !label.isEmpty {
                    JSONText.appendEscaped(label, to: &out)
                    out.appendLiteral(": ")
                }
                out.appendCopy(of: message)
                if let subtitle, !subtitle.isEmpty {
                    out.appendLiteral(", ")
                    out.appendCopy(of: subtitle)
                }
            }
            out.append(UInt8(ascii: "\""))
            out.appendLiteral(#","waited":"#)
            StreamTime.append(waited, to: &out)
            if let source = toast.source { field(#","source":""#, source, &out) }
            for generic in ToastField.recordedGenericFields { Self.appendMember(generic, of: toast, to: &out) }
            // Extra fields kept as text already written as they would be go out as they are.
            let knownCanonical = toast.extraTextIsKnownCanonical
            let wroteText = toast.withExtraText { text -> Bool in
                guard knownCanonical || JSONText.isCanonicalObject(text) else { return false }
                out.appendLiteral(#","extra":"#)
                out.append(text)
                return true
            } ?? false
            if !wroteText && !toast.extra.isEmpty {
                out.appendLiteral(#","extra":"#)
                JSONText.appendObject(toast.extra, to: &out)
            }
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
            // What was lost, as the toast had it when it was dropped (a dropped error shows).
            _ = toast.withMessageBytes { escapedField(#","message":""#, $0, &out) }
            if let member = Self.roleMember(toast.role) {
                out.appendLiteral(member)
            } else {
                field(#","role":""#, toast.role, &out)
            }
            if let member = Self.stageMember(drop.stageLabel) {
                out.appendLiteral(member)
            } else {
                field(#","stage":""#, drop.stage, &out)
            }
            if let member = Self.reasonMember(drop.reason) {
                out.appendLiteral(member)
            } else {
                field(#","reason":""#, drop.reason.rawValue, &out)
            }
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

    /// `,"name":value` for a field of the schema's general storage that records carry, left
    /// out when the toast has no value for it (see `PresentMember.valueWhenAbsent`). Written
    /// from the field's kind, so it serves any field a row adds.
    static func appendMember(_ field: ToastField, of toast: Toast, to out: inout ByteBuffer) {
        toast.visitValue(of: field) { value in
            let absent = PresentMember.valueWhenAbsent(of: field)
            if case .absent = value, absent == nil { return }
            out.append(UInt8(ascii: ","))
            JSONText.appendString(field.name, to: &out)
            out.append(UInt8(ascii: ":"))
            switch value {
            case .absent: if let absent { JSONText.appendValue(absent, to: &out) }
            case .text(let bytes):
                out.append(UInt8(ascii: "\""))
                JSONText.appendEscaped(bytes, to: &out)
                out.append(UInt8(ascii: "\""))
            case .time(let time): StreamTime.append(time, to: &out)
            case .integer(let integer): JSONText.appendValue(.integer(Int64(integer)), to: &out)
            case .flag(let flag): out.appendLiteral(flag ? "true" : "false")
            }
        }
    }

    /// `"screen":…` when screens are on (docs/events.md, "Screens").
    @inline(__always)
    private func screen(of toast: Toast, _ out: inout ByteBuffer) {
        // Written from the key itself: a `JSONValue` of it cost a copy of the string for every
        // record, and with screens on every record has one.
        switch toast.screenKey {
        case nil: return
        case .text(let text)?:
            out.appendLiteral(#","screen":""#)
            JSONText.appendEscaped(text, to: &out)
            out.append(UInt8(ascii: "\""))
        case .integer(let integer)?:
            out.appendLiteral(#","screen":"#)
            JSONText.appendValue(.integer(integer), to: &out)
        }
    }

    // The members whose values are a closed set of words, written whole: nothing to escape.

    /// A standard role, written whole (a role of `config{ roles = … }` is escaped).
    private static func roleMember(_ role: String) -> StaticString? {
        switch role {
        case "info": #","role":"info""#
        case "error": #","role":"error""#
        case "success": #","role":"success""#
        case "warning": #","role":"warning""#
        default: nil
        }
    }

    private static func member(_ placement: Placement) -> StaticString {
        switch placement {
        case .top: #","placement":"top""#
        case .center: #","placement":"center""#
        case .bottom: #","placement":"bottom""#
        }
    }

    private static func member(_ policy: Policy) -> StaticString {
        switch policy {
        case .enqueue: #","policy":"enqueue""#
        case .replace: #","policy":"replace""#
        case .stack: #","policy":"stack""#
        }
    }

    /// A built-in stage's name as a drop's `stage`, written whole (a plugin's is escaped).
    /// (The same shape as `reasonMember`, over the other words: each member is one literal.)
    private static func stageMember(_ stage: DropLabel) -> StaticString? {
        switch stage {
        case .word(.host): #","stage":"host""#
        case .word(.dedup): #","stage":"dedup""#
        case .word(.rule): #","stage":"rule""#
        case .word(.rateLimit): #","stage":"rate_limit""#
        case .word(.debounce): #","stage":"debounce""#
        case .word(.digest): #","stage":"digest""#
        default: nil
        }
    }

    /// A built-in drop reason, written whole (a plugin's own is escaped).
    private static func reasonMember(_ reason: DropReason) -> StaticString? {
        switch reason.label {
        case .word(.evicted): #","reason":"evicted""#
        case .word(.duplicate): #","reason":"duplicate""#
        case .word(.repeat): #","reason":"repeat""#
        case .word(.rule): #","reason":"rule""#
        case .word(.rateLimited): #","reason":"rate_limited""#
        case .word(.cancelled): #","reason":"cancelled""#
        case .word(.hostRemoved): #","reason":"host_removed""#
        case .word(.debounced): #","reason":"debounced""#
        case .word(.digested): #","reason":"digested""#
        default: nil
        }
    }

    private static func member(_ reason: DismissReason) -> StaticString {
        switch reason {
        case .timeout: #","reason":"timeout""#
        case .tap: #","reason":"tap""#
        case .longPress: #","reason":"long_press""#
        case .swipe: #","reason":"swipe""#
        case .programmatic: #","reason":"programmatic""#
        case .replacement: #","reason":"replacement""#
        case .hostRemoved: #","reason":"host_removed""#
        case .screenLimit: #","reason":"screen_limit""#
        case .preempted: #","reason":"preempted""#
        }
    }

    /// Appends a string member; `opening` is the text before the value, `,"name":"`, in one
    /// literal, so a member costs three appends rather than six.
    private func field(_ opening: StaticString, _ value: String, _ out: inout ByteBuffer) {
        out.appendLiteral(opening)
        JSONText.appendEscaped(value, to: &out)
        out.append(UInt8(ascii: "\""))
    }

    /// A string member whose value is the UTF-8 `bytes` (a toast's stored text, lent for the
    /// call and copied into `out`); returns where the escaped value is in `out`.
    private func escapedField(_ opening: StaticString, _ bytes: UnsafeRawBufferPointer, _ out: inout ByteBuffer) -> Range<Int> {
        out.appendLiteral(opening)
        let start = out.count
        JSONText.appendEscaped(bytes, to: &out)
        let end = out.count
        out.append(UInt8(ascii: "\""))
        return start..<end
    }
}
