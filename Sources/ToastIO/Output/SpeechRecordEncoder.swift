import ToastCore

/// `--format speech`: one line per presented toast, what a screen reader would say; control
/// and bidi characters from the input are written as visible escapes (`TerminalText`), so one
/// utterance is always one line.
package struct SpeechRecordEncoder: RecordEncoder {
    package init() {}

    package func encode(_ record: Record, into out: inout ByteBuffer) -> Bool {
        guard case .present(let toast, _, _) = record else { return false }
        out.appendUTF8(TerminalText.escaped(toast.announcement ?? toast.message))
        out.append(UInt8(ascii: "\n"))
        return true
    }
}
