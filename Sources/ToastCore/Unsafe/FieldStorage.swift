/// Where one toast's fields live (`Toast.Storage`): the fields as Swift values followed, in the
/// same allocation, by the bytes of the text the decoder read (message, subtitle and extra
/// fields as they came in). A toast read from a JSON line is one allocation; no `String` is made
/// for its text unless someone asks for one, and the encoders, the dedup key, the host and the
/// Lua bridge read the bytes where they are. Generic over the fields so that this folder, the
/// one place with raw memory, knows nothing of what a toast is.
///
/// Safe to use: the byte area is written once, when the storage is made, and never again (a
/// changed field becomes a `String` among the fields, and its old bytes are simply unused); a
/// `TextRange` is only made by `make` for bytes it wrote, so every range read lies inside the
/// area; bytes are lent out only for the duration of a closure, while the caller holds the
/// storage.
@usableFromInline package final class FieldStorage<Fields>: ManagedBuffer<FieldStorageHeader<Fields>, UInt8> {
    /// Storage holding the fields moved out of `source` (left uninitialized: the fields are
    /// moved, not copied, and `RowStore.take` lends nothing else), then changed in place by
    /// `patch`, given where `message`, `subtitle` and `extra` were put in the byte area (nil
    /// for a text not given).
    package static func make(message: UnsafeRawBufferPointer?, subtitle: UnsafeRawBufferPointer?, extra: UnsafeRawBufferPointer?,
                             movingFieldsFrom source: UnsafeMutablePointer<Fields>,
                             patch: (inout Fields, _ message: TextRange?, _ subtitle: TextRange?, _ extra: TextRange?) -> Void) -> FieldStorage {
        let messageRange = message.map { TextRange(start: 0, count: $0.count) }
        let subtitleRange = subtitle.map { TextRange(start: messageRange?.end ?? 0, count: $0.count) }
        let extraRange = extra.map { TextRange(start: subtitleRange?.end ?? messageRange?.end ?? 0, count: $0.count) }
        let total = extraRange?.end ?? subtitleRange?.end ?? messageRange?.end ?? 0
        let storage = create(minimumCapacity: total) { _ in
            FieldStorageHeader(fields: source.move(), textCount: total)
        }
        storage.withUnsafeMutablePointerToHeader { header in
            patch(&header.pointee.fields, messageRange, subtitleRange, extraRange)
        }
        storage.withUnsafeMutablePointerToElements { area in
            func write(_ text: UnsafeRawBufferPointer?, at range: TextRange?) {
                guard let text, let range, let source = text.baseAddress, range.count > 0 else { return }
                UnsafeMutableRawPointer(area + range.start).copyMemory(from: source, byteCount: range.count)
            }
            write(message, at: messageRange)
            write(subtitle, at: subtitleRange)
            write(extra, at: extraRange)
        }
        // `create` is declared to return the base class; it makes an instance of the subclass.
        return unsafeDowncast(storage, to: FieldStorage.self)
    }

    /// Storage with `fields` and no bytes.
    static func make(_ fields: Fields) -> FieldStorage {
        let storage = create(minimumCapacity: 0) { _ in FieldStorageHeader(fields: fields, textCount: 0) }
        return unsafeDowncast(storage, to: FieldStorage.self)
    }

    /// A copy with the same fields and bytes (copy on write). The header is copied once,
    /// straight from this storage into the new one (through a local it was copied twice, and
    /// the local destroyed again: every field's references counted three more times).
    func copy() -> FieldStorage {
        let count = withUnsafeMutablePointerToHeader { $0.pointee.textCount }
        let storage = FieldStorage.create(minimumCapacity: count) { _ in withUnsafeMutablePointerToHeader { $0.pointee } }
        withUnsafeMutablePointerToElements { source in
            storage.withUnsafeMutablePointerToElements { target in target.update(from: source, count: count) }
        }
        return unsafeDowncast(storage, to: FieldStorage.self)
    }

    /// The fields, read and changed in place through the header's address: `header` itself
    /// would check exclusive access at run time on every use (a stored class property), on
    /// every field read of every toast. The address is fixed for the object's life
    /// and used only while `self` is held; the pipeline is single-threaded, so no two accesses
    /// overlap.
    @inlinable
    package var fields: Fields {
        _read { yield withUnsafeMutablePointerToHeader { $0 }.pointee.fields }
        _modify { yield &withUnsafeMutablePointerToHeader { $0 }.pointee.fields }
    }

    /// The bytes of `range`, for the duration of `body`.
    @inlinable
    package func withBytes<Result>(_ range: TextRange, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try withUnsafeMutablePointerToElements { area in
            try body(UnsafeRawBufferPointer(start: area + range.start, count: range.count))
        }
    }
}

@usableFromInline package struct FieldStorageHeader<Fields> {
    @usableFromInline var fields: Fields
    /// Bytes used in the byte area.
    @usableFromInline var textCount: Int
}

/// Where a text field's bytes are in its toast's storage.
@usableFromInline package struct TextRange: Equatable {
    @usableFromInline package var start: Int
    @usableFromInline package var count: Int
    @inlinable package var end: Int { start + count }

    @inlinable package init(start: Int, count: Int) {
        self.start = start
        self.count = count
    }
}
