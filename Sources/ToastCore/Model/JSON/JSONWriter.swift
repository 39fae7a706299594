/// JSON text written as it is made, with no `JSONValue` in between: what a checkpoint writes
/// of every screen that changed, where building a tree of values first (and freeing it) costs
/// more than the text. The same text `JSONText.appendValue` writes for the same tree.
///
/// The writer places the commas: a value, an object or an array written after another in the
/// same container gets one; a key is written with its colon, and the value that follows it
/// gets none.
///
/// It writes into a `ByteBuffer` (an append is a capacity check and a copy), and one writer
/// can make many texts in turn (`takeText`), so that a checkpoint that writes thousands of
/// rows grows its memory once.
package struct JSONWriter: ~Copyable {
    private var bytes: ByteBuffer
    /// Whether a value ended last, so that the next one is written after a comma.
    private var afterValue = false

    package init(reservingCapacity capacity: Int = 256) {
        bytes = ByteBuffer(capacity: capacity)
    }

    /// The text written so far, as an array.
    package var text: [UInt8] { bytes.bytes }

    /// Where the writer stands, to go back to (`rollBack(to:)`).
    package struct Mark {
        fileprivate let count: Int
        fileprivate let afterValue: Bool
    }

    package var mark: Mark { Mark(count: bytes.count, afterValue: afterValue) }

    /// Forgets what was written since `mark` (a value that turned out to need another form).
    package mutating func rollBack(to mark: Mark) {
        bytes.truncate(to: mark.count)
        afterValue = mark.afterValue
    }

    /// Ends one of many texts written one after the other, to be taken as one array
    /// (`takeText`) and sliced: the next value starts a text of its own, with no comma before
    /// it. Returns where in that array the text ends.
    package mutating func endText() -> Int {
        afterValue = false
        return bytes.count
    }

    /// The text written so far, and the writer emptied for the next one.
    package mutating func takeText() -> [UInt8] {
        defer {
            bytes.removeAll()
            afterValue = false
        }
        return bytes.bytes
    }

    @inline(__always) package mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
    }

    @inline(__always) package mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        afterValue = true
    }

    @inline(__always) package mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
    }

    @inline(__always) package mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        afterValue = true
    }

    /// A member's name and its colon; `name` needs no escapes (the saved forms' names are
    /// plain ASCII words).
    @inline(__always) package mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        bytes.appendLiteral(name)
        bytes.appendLiteral("\":")
    }

    /// A member's name from a run's words (a stage's, an extra field's), escaped. Named apart
    /// from `key(_:)`, which a literal would otherwise not reach (a literal is a `String` first).
    package mutating func key(escaping name: String) {
        separate()
        JSONText.appendString(name, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }

    /// A member's name given as its JSON text and colon (`"name":`), made once by a caller
    /// that writes the same names again and again.
    @inline(__always) package mutating func key(written text: UnsafeRawBufferPointer) {
        separate()
        bytes.append(text)
    }

    @inline(__always) package mutating func integer(_ number: Int64) {
        separate()
        if number < 0 { bytes.append(UInt8(ascii: "-")) }
        StreamTime.appendDecimal(number.magnitude, to: &bytes)
        afterValue = true
    }

    package mutating func integer(_ number: Int) { integer(Int64(number)) }

    @inline(__always) package mutating func string(_ text: String) {
        separate()
        JSONText.appendString(text, to: &bytes)
        afterValue = true
    }

    /// A string from its UTF-8 bytes (a toast's message as it holds it), escaped.
    @inline(__always) package mutating func string(utf8 text: UnsafeRawBufferPointer) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        JSONText.appendEscaped(text, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
        afterValue = true
    }

    /// A value that is JSON text already, as it is.
    package mutating func json(_ text: UnsafeRawBufferPointer) {
        separate()
        bytes.append(text)
        afterValue = true
    }

    /// Bytes as a string of lowercase hexadecimal digits (a key `SavedKey` has no readable
    /// form for).
    package mutating func hexString(_ data: UnsafeRawBufferPointer) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        for byte in data {
            bytes.append(JSONText.hexDigits[Int(byte >> 4)])
            bytes.append(JSONText.hexDigits[Int(byte & 0xF)])
        }
        bytes.append(UInt8(ascii: "\""))
        afterValue = true
    }

    package mutating func bool(_ flag: Bool) {
        separate()
        bytes.appendLiteral(flag ? "true" : "false")
        afterValue = true
    }

    @inline(__always) package mutating func null() {
        separate()
        bytes.appendLiteral("null")
        afterValue = true
    }

    /// Any value, as `JSONText.appendValue` writes it.
    package mutating func value(_ value: JSONValue) {
        separate()
        JSONText.appendValue(value, to: &bytes)
        afterValue = true
    }

    /// A member with its value: `key(name)` then the value.
    @inline(__always) package mutating func member(_ name: StaticString, _ number: Int64) {
        key(name)
        integer(number)
    }

    @inline(__always) package mutating func member(_ name: StaticString, _ number: Int) {
        key(name)
        integer(Int64(number))
    }

    @inline(__always) package mutating func member(_ name: StaticString, _ text: String) {
        key(name)
        string(text)
    }

    package mutating func member(_ name: StaticString, _ flag: Bool) {
        key(name)
        bool(flag)
    }

    /// Each member of an object, as `JSONText.appendObject` writes them (without the braces).
    package mutating func members(_ members: [JSONMember]) {
        for member in members {
            key(escaping: member.name)
            value(member.value)
        }
    }

    /// The value the text is, read back: for the callers that want a tree (the whole saved
    /// state, tests). Text this writer wrote is always JSON; nil would be a bug of a caller
    /// that left a container open.
    package var value: JSONValue? { try? JSONScanner.value(of: bytes.bytes) }

    @inline(__always) private mutating func separate() {
        if afterValue {
            bytes.append(UInt8(ascii: ","))
            afterValue = false
        }
    }
}
