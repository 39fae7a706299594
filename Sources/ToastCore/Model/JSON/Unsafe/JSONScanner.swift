#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a line is not strict JSON (RFC 8259); the message ends up after `input line N: `.
@usableFromInline package struct JSONSyntaxError: Error {
    package var message: String

    package init(message: String) {
        self.message = message
    }
}

/// A number as written in JSON, read three ways at once.
@usableFromInline package struct JSONNumber {
    var double: Double
    /// The value, when it was written without fraction or exponent and fits `Int64`.
    var integer: Int64?
    /// The value in whole microseconds, rounded half to even from the exact decimal
    /// (docs/events.md); nil when out of range.
    package var microseconds: Microseconds?

    package var jsonValue: JSONValue {
        if let integer { return .integer(integer) }
        return .number(double)
    }
}

/// A strict, byte-level JSON reader over one line, with no `Foundation` on the hot path.
///
/// The line must already be valid UTF-8. Nesting is limited to `maxDepth`, so hostile input
/// cannot exhaust the stack.
///
/// Safe to use while the line's bytes live (a scanner is made inside the closure that lends
/// them, and never kept): every read checks `index` against `bytes.count`, and what it hands
/// out are parts of `bytes`.
///
/// Inlinable across modules (docs/performance.md, "Across modules"): the decoder in ToastIO and the
/// Lua bridge scan every line with it.
@usableFromInline package struct JSONScanner {
    package static let maxDepth = 256

    @usableFromInline package let bytes: UnsafeBufferPointer<UInt8>
    @usableFromInline package var index = 0
    /// The column of the first number too large for a `Double` (`1e400`). Such a number is
    /// valid JSON, so the line is still read to its end (and counted as a show if it is one);
    /// the decoder then rejects it, like a value out of range.
    package private(set) var outOfRangeColumn: Int?
    /// The room an object or an array is given before its first member (0: none, it grows as
    /// it is read). A reader of values it drops soon after (the parts of a saved screen's row)
    /// asks for a few, so that a small object is allocated once instead of growing with each
    /// member. Values that are kept (a toast's extra fields) are read without, so that they
    /// hold no room they never use.
    package var firstRoom = 0

    package init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    @inlinable package var isAtEnd: Bool { index >= bytes.count }

    @inlinable package var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    @inlinable
    package mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// Consumes `byte` (after white space) or fails naming what was expected.
    @inlinable
    package mutating func expect(_ byte: UInt8, _ what: String) throws {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == byte else { throw unexpected(expecting: what) }
        index += 1
    }

    @usableFromInline package func unexpected(expecting what: String) -> JSONSyntaxError {
        guard index < bytes.count else {
            return JSONSyntaxError(message: "invalid JSON: unexpected end of line, expected \(what)")
        }
        let byte = bytes[index]
        let shown = byte >= 0x20 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
        return JSONSyntaxError(message: "invalid JSON at column \(index + 1): unexpected \(shown), expected \(what)")
    }

    // MARK: Values

    /// The one JSON value `bytes` hold (white space around it allowed); the bytes must be
    /// valid UTF-8.
    package static func value(of bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        try bytes.withUnsafeBufferPointer { buffer throws(JSONSyntaxError) in try value(of: buffer) }
    }

    /// The one JSON value the bytes of `buffer` hold, as `value(of:)` reads an array's.
    package static func value(of buffer: UnsafeBufferPointer<UInt8>) throws(JSONSyntaxError) -> JSONValue {
        do {
            var scanner = JSONScanner(buffer)
            let value = try scanner.parseValue()
            scanner.skipWhitespace()
            guard scanner.isAtEnd else { throw scanner.unexpected(expecting: "the end of the text") }
            return value
        } catch let error as JSONSyntaxError {
            throw error
        } catch {
            throw JSONSyntaxError(message: "\(error)")
        }
    }

    package mutating func parseValue(depth: Int = 0) throws -> JSONValue {
        skipWhitespace()
        guard let byte = current else { throw unexpected(expecting: "a value") }
        switch byte {
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "{"): return .object(try parseObject(depth: depth + 1))
        case UInt8(ascii: "["): return .array(try parseArray(depth: depth + 1))
        case UInt8(ascii: "t"): try parseLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try parseLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try parseLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            if let integer = scanSmallInteger() { return .integer(integer) }
            return try parseNumber().jsonValue
        default: throw unexpected(expecting: "a value")
        }
    }

    // MARK: Reading a known form
    //
    // For a reader that expects text in one form (a saved state's rows, as toastscript writes
    // them) and reads it without a JSON value in between: each says whether the text goes on as
    // expected, and a reader that finds it does not reads the text again as a value.

    /// Moves past white space and `byte` when it comes next; false when something else does.
    package mutating func skip(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard current == byte else { return false }
        index += 1
        return true
    }

    /// Moves past `"name":` when it comes next; false when something else does.
    package mutating func skipMember(_ name: StaticString) -> Bool {
        skipWhitespace()
        guard let text = scanPlainString(),
              name.withUTF8Buffer({ UnsafeRawBufferPointer($0).hasSameBytes(as: UnsafeRawBufferPointer(text)) }) else { return false }
        return skip(UInt8(ascii: ":"))
    }

    /// The name of the member that comes next, moving past it and its `:` (nil: none does).
    package mutating func memberName() -> UnsafeBufferPointer<UInt8>? {
        guard let name = parsePlainString(), skip(UInt8(ascii: ":")) else { return nil }
        return name
    }

    /// The integer that comes next, as a value reads it (nil: something else comes).
    package mutating func integerValue() -> Int64? {
        skipWhitespace()
        guard current == UInt8(ascii: "-") || current.map({ $0 &- UInt8(ascii: "0") < 10 }) == true else { return nil }
        if let integer = scanSmallInteger() { return integer }
        guard case .integer(let integer)? = try? parseNumber().jsonValue else { return nil }
        return integer
    }

    /// The string that comes next (nil: something else comes).
    package mutating func stringValue() -> String? {
        skipWhitespace()
        guard current == UInt8(ascii: "\"") else { return nil }
        return try? parseString()
    }

    /// `true` or `false` when it comes next (nil: something else comes).
    package mutating func boolValue() -> Bool? {
        skipWhitespace()
        switch current {
        case UInt8(ascii: "t"): return (try? parseLiteral("true")).map { true }
        case UInt8(ascii: "f"): return (try? parseLiteral("false")).map { false }
        default: return nil
        }
    }

    /// A number of at most 18 digits with no fraction nor exponent (`-` then 1-9 first, or a
    /// lone `0`), the value `parseNumber` reads it as, moving past it; nil, not moving, for
    /// anything else (which `parseNumber` reads, or says is wrong). Most numbers are such.
    private mutating func scanSmallInteger() -> Int64? {
        var position = index
        let negative = bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        let first = position
        var value: Int64 = 0
        while position < bytes.count, position - first < 18, bytes[position] &- UInt8(ascii: "0") < 10 {
            value = value &* 10 &+ Int64(bytes[position] &- UInt8(ascii: "0"))
            position += 1
        }
        let digits = position - first
        guard digits > 0, digits == 1 || bytes[first] != UInt8(ascii: "0"), !(negative && value == 0) else { return nil }
        if position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): return nil
            default: break
            }
        }
        index = position
        return negative ? -value : value
    }

    private mutating func parseLiteral(_ word: StaticString) throws {
        let length = word.utf8CodeUnitCount
        let matches = index + length <= bytes.count && word.withUTF8Buffer { literal in
            literal.indices.allSatisfy { bytes[index + $0] == literal[$0] }
        }
        guard matches else { throw unexpected(expecting: "a value") }
        index += length
    }

    mutating func parseObject(depth: Int) throws -> [JSONMember] {
        guard depth <= JSONScanner.maxDepth else {
            throw JSONSyntaxError(message: "invalid JSON: nested deeper than \(JSONScanner.maxDepth) levels")
        }
        try expect(UInt8(ascii: "{"), "'{'")
        var members: [JSONMember] = []
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            return members
        }
        // A bit for each name length (modulo 64) seen: a name of a length not seen before is
        // no repeat, and needs no look through the names before it (nearly every name).
        var lengthsSeen: UInt64 = 0
        if firstRoom > 0 { members.reserveCapacity(firstRoom) }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw unexpected(expecting: "a member name") }
            let name = try parseString()
            try expect(UInt8(ascii: ":"), "':'")
            let value = try parseValue(depth: depth)
            let length = name.utf8.count
            let lengthBit: UInt64 = 1 << UInt64(length & 63)
            if lengthsSeen & lengthBit != 0,
               let existing = members.firstIndex(where: { $0.name.utf8.count == length && $0.name == name }) {
                members[existing].value = value
            } else {
                members.append(JSONMember(name, value))
            }
            lengthsSeen |= lengthBit
            guard try endOfMember(closing: UInt8(ascii: "}")) else { return members }
        }
    }

    mutating func parseArray(depth: Int) throws -> [JSONValue] {
        guard depth <= JSONScanner.maxDepth else {
            throw JSONSyntaxError(message: "invalid JSON: nested deeper than \(JSONScanner.maxDepth) levels")
        }
        try expect(UInt8(ascii: "["), "'['")
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            return elements
        }
        if firstRoom > 0 { elements.reserveCapacity(firstRoom) }
        while true {
            elements.append(try parseValue(depth: depth))
            guard try endOfMember(closing: UInt8(ascii: "]")) else { return elements }
        }
    }

    /// After a member or element: true on `,` (another follows), false on the closing bracket.
    @inlinable
    package mutating func endOfMember(closing: UInt8) throws -> Bool {
        skipWhitespace()
        switch current {
        case UInt8(ascii: ","): index += 1; return true
        case closing: index += 1; return false
        default: throw unexpected(expecting: closing == UInt8(ascii: "}") ? "',' or '}'" : "',' or ']'")
        }
    }

    // MARK: Strings

    /// Reads a member name at the current `"`: a view of its bytes when it has no escapes
    /// (most do), so a caller can match it against names it knows without a `String`.
    /// The bytes of the string value at the current place when it holds no escape (valid
    /// UTF-8, as the line was checked), moving past it; nil, without moving, for anything else.
    @inlinable
    package mutating func parsePlainString() -> UnsafeBufferPointer<UInt8>? {
        skipWhitespace()
        guard current == UInt8(ascii: "\"") else { return nil }
        return scanPlainString()
    }

    /// Checks the value at the current place exactly as `parseValue(depth:)` does, and moves
    /// past it, making a Swift value only of what nests (arrays and objects, so their depth is
    /// limited as there): a string or a number costs no allocation. Returns whether the value
    /// was a string without escapes.
    @discardableResult
    package mutating func checkValue(depth: Int) throws -> Bool {
        skipWhitespace()
        if current == UInt8(ascii: "\""), scanPlainString() != nil { return true }
        _ = try parseValue(depth: depth)
        return false
    }

    /// Moves past the value at the current place, making no Swift value of it (for values
    /// already checked once: nesting is not limited here).
    mutating func skipValue() throws {
        skipWhitespace()
        switch current {
        case UInt8(ascii: "\""):
            if scanPlainString() == nil { _ = try parseString() }
        case UInt8(ascii: "{"):
            index += 1
            skipWhitespace()
            if current == UInt8(ascii: "}") { index += 1; return }
            repeat {
                skipWhitespace()
                _ = try parseName()
                try expect(UInt8(ascii: ":"), "':'")
                try skipValue()
            } while try endOfMember(closing: UInt8(ascii: "}"))
        case UInt8(ascii: "["):
            index += 1
            skipWhitespace()
            if current == UInt8(ascii: "]") { index += 1; return }
            repeat { try skipValue() } while try endOfMember(closing: UInt8(ascii: "]"))
        default:
            _ = try parseValue()  // a number or a literal
        }
    }

    @inlinable
    package mutating func parseName() throws -> (raw: UnsafeBufferPointer<UInt8>?, decoded: String?) {
        if let raw = scanPlainString() { return (raw, nil) }
        return (nil, try parseString())
    }

    /// The bytes of the string at the current `"` when it holds no escape and no control
    /// character (then the scanner moves past it); nil, not moving, otherwise.
    /// (Inlined where the decoder reads every member name and string; the view is made from
    /// the base address, not by slicing, which checks its bounds again.)
    @inlinable
    mutating func scanPlainString() -> UnsafeBufferPointer<UInt8>? {
        let start = index + 1
        let end = UnsafeRawBufferPointer(bytes).firstJSONSpecialByte(from: start)
        guard end < bytes.count, bytes[end] == UInt8(ascii: "\""), let base = bytes.baseAddress else { return nil }
        index = end + 1
        return UnsafeBufferPointer(start: base + start, count: end - start)
    }

    /// Reads a string at the current `"` (one with escapes is decoded by
    /// `decodeEscapedString`, in Unsafe/).
    @usableFromInline mutating func parseString() throws -> String {
        if let raw = scanPlainString() { return String(decoding: raw, as: UTF8.self) }
        index += 1  // opening quote
        return try decodeEscapedString()
    }

    func controlCharacter(_ byte: UInt8) -> JSONSyntaxError {
        JSONSyntaxError(message: "invalid JSON at column \(index + 1): control character 0x\(String(byte, radix: 16)) in a string")
    }

    /// The scalar an escape stands for, the scanner after the backslash; moves past it.
    mutating func parseEscape() throws -> Unicode.Scalar {
        guard let byte = current else { throw JSONSyntaxError(message: "invalid JSON: unterminated string") }
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return Unicode.Scalar(byte)
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            var scalar = try parseHex4()
            if (0xD800...0xDBFF).contains(scalar) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw JSONSyntaxError(message: "invalid JSON at column \(index + 1): lone surrogate in \\u escape")
                }
                index += 2
                let low = try parseHex4()
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw JSONSyntaxError(message: "invalid JSON at column \(index + 1): lone surrogate in \\u escape")
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw JSONSyntaxError(message: "invalid JSON at column \(index + 1): lone surrogate in \\u escape")
            }
            guard let unicode = Unicode.Scalar(scalar) else {
                throw JSONSyntaxError(message: "invalid JSON: bad \\u escape")
            }
            return unicode
        default:
            index -= 2
            throw JSONSyntaxError(message: "invalid JSON at column \(index + 1): unknown escape '\\\(Character(Unicode.Scalar(byte)))'")
        }
    }

    private mutating func parseHex4() throws -> UInt32 {
        guard index + 4 <= bytes.count else { throw JSONSyntaxError(message: "invalid JSON: short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw JSONSyntaxError(message: "invalid JSON at column \(index + 1): bad hex digit in \\u escape")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    // MARK: Numbers

    /// A number of the shape event times nearly always have — an optional `-`, at most 12
    /// whole digits without a leading zero, at most 6 after a point, no exponent — read
    /// straight into microseconds (exact: it has no more digits than a microsecond); nil,
    /// without moving, for any other number or anything else, which `parseNumber` reads. Every
    /// show's `at` is one; `parseNumber` also works out the number's `Double`, which a time
    /// does not need.
    @inlinable package mutating func parsePlainTime() -> Microseconds? {
        let end = bytes.count
        var position = index
        let negative = position < end && bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        guard position < end else { return nil }
        let wholeStart = position
        var whole: Int64 = 0
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
        } else {
            while position < end, case let digit = bytes[position] &- UInt8(ascii: "0"), digit < 10 {
                whole = whole &* 10 &+ Int64(digit)
                position += 1
            }
        }
        guard position > wholeStart, position - wholeStart <= 12 else { return nil }
        var fraction: Int64 = 0
        var scale: Int64 = 1_000_000
        if position < end && bytes[position] == UInt8(ascii: ".") {
            position += 1
            let fractionStart = position
            while position < end, case let digit = bytes[position] &- UInt8(ascii: "0"), digit < 10 {
                guard scale > 1 else { return nil }
                fraction = fraction &* 10 &+ Int64(digit)
                scale /= 10
                position += 1
            }
            guard position > fractionStart else { return nil }
        }
        // A digit here follows a leading zero; an exponent or a point is for `parseNumber`.
        if position < end, case let next = bytes[position],
           next == UInt8(ascii: "e") || next == UInt8(ascii: "E") || next == UInt8(ascii: ".")
            || (next >= UInt8(ascii: "0") && next <= UInt8(ascii: "9")) {
            return nil
        }
        index = position
        let micros = whole &* 1_000_000 &+ fraction &* scale
        return negative ? -micros : micros
    }

    /// Reads a number in RFC 8259's grammar: no `+`, no leading zeros, no bare `.`, no NaN.
    package mutating func parseNumber() throws -> JSONNumber {
        let start = index
        var negative = false
        if current == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        var mantissa: UInt64 = 0
        var significantDigits = 0
        var decimalExponent = 0
        var dropped = false  // a nonzero digit beyond the 19 kept
        var isIntegral = true

        func isDigit(_ byte: UInt8?) -> Bool {
            guard let byte else { return false }
            return byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
        }

        guard isDigit(current) else { throw unexpected(expecting: "a digit") }
        if current == UInt8(ascii: "0") {
            index += 1
            if isDigit(current) {
                throw JSONSyntaxError(message: "invalid JSON at column \(start + 1): leading zero in a number")
            }
        } else {
            while isDigit(current) {
                let digit = UInt64(bytes[index] - UInt8(ascii: "0"))
                if significantDigits < 19 {
                    mantissa = mantissa * 10 + digit
                    significantDigits += 1
                } else {
                    decimalExponent += 1
                    if digit != 0 { dropped = true }
                }
                index += 1
            }
        }
        if current == UInt8(ascii: ".") {
            isIntegral = false
            index += 1
            guard isDigit(current) else { throw unexpected(expecting: "a digit after '.'") }
            while isDigit(current) {
                let digit = UInt64(bytes[index] - UInt8(ascii: "0"))
                if significantDigits < 19 {
                    if mantissa != 0 || digit != 0 {
                        mantissa = mantissa * 10 + digit
                        significantDigits += 1
                    }
                    decimalExponent -= 1
                } else if digit != 0 {
                    dropped = true
                }
                index += 1
            }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            isIntegral = false
            index += 1
            var exponentNegative = false
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") {
                exponentNegative = current == UInt8(ascii: "-")
                index += 1
            }
            guard isDigit(current) else { throw unexpected(expecting: "a digit in the exponent") }
            var exponent = 0
            while isDigit(current) {
                exponent = min(exponent * 10 + Int(bytes[index] - UInt8(ascii: "0")), 1_000_000)
                index += 1
            }
            decimalExponent += exponentNegative ? -exponent : exponent
        }

        let double = doubleValue(start: start, negative: negative, mantissa: mantissa,
                                 exponent: decimalExponent, exact: !dropped)
        if !double.isFinite && outOfRangeColumn == nil { outOfRangeColumn = start + 1 }
        var integer: Int64? = nil
        if isIntegral && !dropped && decimalExponent == 0 {
            if negative {
                if mantissa <= UInt64(Int64.max) + 1 { integer = mantissa == UInt64(Int64.max) + 1 ? Int64.min : -Int64(mantissa) }
            } else if mantissa <= UInt64(Int64.max) {
                integer = Int64(mantissa)
            }
        }
        let micros = JSONScanner.microseconds(negative: negative, mantissa: mantissa,
                                              exponent: decimalExponent, dropped: dropped)
        return JSONNumber(double: double, integer: integer, microseconds: micros)
    }

    private static let exactPowersOfTen: [Double] = (0...22).map { exponent in
        var value = 1.0
        for _ in 0..<exponent { value *= 10 }
        return value
    }

    private func doubleValue(start: Int, negative: Bool, mantissa: UInt64, exponent: Int,
                             exact: Bool) -> Double {
        var value: Double
        if exact && mantissa < (1 << 53) && (-22...22).contains(exponent) {
            // Both operands are exact, so one IEEE operation rounds correctly.
            value = exponent >= 0 ? Double(mantissa) * JSONScanner.exactPowersOfTen[exponent]
                                  : Double(mantissa) / JSONScanner.exactPowersOfTen[-exponent]
            if negative { value = -value }
        } else {
            var text = Array(bytes[start..<index]).map { CChar(bitPattern: $0) }
            text.append(0)
            value = strtod(text, nil)
        }
        return value
    }

    /// `±mantissa × 10^exponent` in microseconds, rounded half to even; nil when it overflows.
    static func microseconds(negative: Bool, mantissa: UInt64, exponent: Int, dropped: Bool) -> Microseconds? {
        if mantissa == 0 { return 0 }
        let shift = exponent + 6
        var magnitude: UInt64
        if shift >= 0 {
            guard shift <= 18 else { return nil }
            var scale: UInt64 = 1
            for _ in 0..<shift { scale *= 10 }
            let (product, overflow) = mantissa.multipliedReportingOverflow(by: scale)
            guard !overflow else { return nil }
            magnitude = product
        } else {
            let places = -shift
            guard places <= 19 else { return 0 }
            var divisor: UInt64 = 1
            for _ in 0..<places { divisor *= 10 }
            magnitude = mantissa / divisor
            let remainder = mantissa % divisor
            let half = divisor / 2
            if remainder > half || (remainder == half && (dropped || magnitude % 2 == 1)) {
                magnitude += 1
            }
        }
        guard magnitude <= UInt64(Int64.max) else { return nil }
        return negative ? -Int64(magnitude) : Int64(magnitude)
    }
}
