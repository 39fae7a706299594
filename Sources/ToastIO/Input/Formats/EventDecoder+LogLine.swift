#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ToastCore

extension EventDecoder {
    /// A show from a line a native format read into `parts` (`line` is the line they point
    /// into): the message (the whole line when the format found none) and `continuation` (the
    /// lines that continue it with `--multiline`, each after a `\n`), its level's role, its
    /// `source` and `subtitle`, its time, and the other parts as extra fields (`level` first),
    /// written as one JSON object in the batch, as a record writes them.
    mutating func decodeLog(_ line: UnsafeBufferPointer<UInt8>, parts: LogLine, number: Int,
                            batch: ShowBatch, continuation: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0)) -> DecodedEvent {
        showCount += 1
        var messagePlace = parts.message ?? .line(0..<line.count)
        if parts.withBytes(of: messagePlace, in: line, { $0.isEmpty }) { messagePlace = .line(0..<line.count) }
        let message = parts.withBytes(of: messagePlace, in: line) { batch.text.append($0, then: continuation) }
        let subtitle = parts.subtitle.map { place in parts.withBytes(of: place, in: line) { batch.text.append($0) } }
        let source = parts.source.map { place in
            parts.withBytes(of: place, in: line) { interner.string($0.assumingMemoryBound(to: UInt8.self)) }
        }
        extraText.removeAll()
        if let level = parts.level {
            level.rawValue.withUTF8Bytes { value in Self.levelName.withUTF8Bytes { extraText.appendMember(name: $0, value: value) } }
        } else if let word = parts.levelWord {
            parts.withBytes(of: word, in: line) { value in Self.levelName.withUTF8Bytes { extraText.appendMember(name: $0, value: value) } }
        }
        for field in parts.fields {
            parts.withBytes(of: field.name, in: line) { name in
                switch field.value {
                case .text(let place): parts.withBytes(of: place, in: line) { extraText.appendMember(name: name, value: $0) }
                case .flag: extraText.appendMember(name: name, value: nil)
                }
            }
        }
        extraText.close()
        // Written as a record writes members, each name once: canonical, as far as a record
        // would check one (`JSONText.canonicalMembersChecked` members, no escapes).
        let knownCanonical = parts.fields.count + 1 <= JSONText.canonicalMembersChecked
            && extraText.withBytes { text in text.baseAddress.map { memchr($0, 0x5C, text.count) == nil } ?? true }
        let extra: Toast.ExtraFields = extraText.isEmpty ? .members([])
            : .text(extraText.withBytes { batch.text.append($0) }, knownCanonical: knownCanonical)
        let fields = Toast.showFields(id: Self.implicitID(showCount), message: .stored(message), subtitle: subtitle.map(Toast.ToastText.stored),
                                      role: readsLevels ? parts.level?.role : nil, source: source, extra: extra,
                                      duration: defaultDuration, policy: defaultPolicy, inputLine: number)
        return .show(DecodedShow(fields: fields, batch: batch, at: parts.at, line: number))
    }

    private static let levelName = "level"
}
