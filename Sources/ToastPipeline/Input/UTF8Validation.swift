/// Whether `bytes` are well-formed UTF-8 (no overlongs, no surrogates, nothing past U+10FFFF).
///
/// Every input line is checked once, so the JSON scanner can build strings without checking again
/// (SPEC §8 "Lines": a line that is not valid UTF-8 is rejected).
func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    var index = 0
    let count = bytes.count
    while index < count {
        // ASCII runs, eight bytes at a time where alignment allows.
        while index + 8 <= count {
            let word = UnsafeRawPointer(bytes.baseAddress! + index).loadUnaligned(as: UInt64.self)
            if word & 0x8080_8080_8080_8080 != 0 { break }
            index += 8
        }
        guard index < count else { return true }
        let lead = bytes[index]
        if lead < 0x80 {
            index += 1
            continue
        }
        let length: Int
        var minimumSecond: UInt8 = 0x80
        var maximumSecond: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; minimumSecond = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; maximumSecond = 0x9F
        case 0xF0: length = 4; minimumSecond = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; maximumSecond = 0x8F
        default: return false
        }
        guard index + length <= count else { return false }
        let second = bytes[index + 1]
        guard second >= minimumSecond && second <= maximumSecond else { return false }
        var continuation = 2
        while continuation < length {
            guard bytes[index + continuation] & 0xC0 == 0x80 else { return false }
            continuation += 1
        }
        index += length
    }
    return true
}
