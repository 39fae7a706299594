import Foundation
import Testing
@testable import ToastCore

/// `drop_repeats` decides from the bytes that two different texts are different strings when
/// each is its own normal form (`isOwnNormalForm`); Swift's `==` (canonical equivalence) is
/// the judge.
@Suite struct NormalFormTests {
    private func accepts(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { UnsafeRawBufferPointer($0).isOwnNormalForm }
    }

    /// Every scalar it accepts is its own NFC, composes with none of the letters before it
    /// that take a second part, and neither its NFC nor its NFD is another text it accepts;
    /// and it accepts none of the scalars that normalization changes or composes (combining
    /// marks, singletons, jamo, the kana sound marks).
    @Test func theScalarsItAcceptsNormalizationLeavesAlone() {
        let before = ["a", "e", "o", "A", "=", "<", "\u{3B1}", "\u{438}", "\u{304B}", "\u{30AB}", "\u{AC00}", "\u{1100}"]
        var accepted = 0
        for value in UInt32(0x80)...0x1FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = String(Character(scalar))
            guard accepts(text) else { continue }
            accepted += 1
            let forms = [text.precomposedStringWithCanonicalMapping, text.decomposedStringWithCanonicalMapping]
            #expect(forms[0].utf8.elementsEqual(text.utf8), "U+\(String(value, radix: 16)) is not its own NFC")
            for letter in before {
                let pair = letter + text
                #expect(pair.precomposedStringWithCanonicalMapping.utf8.elementsEqual(pair.utf8),
                        "U+\(String(value, radix: 16)) composes with \(letter)")
            }
            for form in forms where !form.utf8.elementsEqual(text.utf8) {
                #expect(!accepts(form), "U+\(String(value, radix: 16)) and its form \(form.unicodeScalars.map { String($0.value, radix: 16) }) are both accepted")
            }
        }
        #expect(accepted > 35_000)
        for value: UInt32 in [0x300, 0x301, 0x338, 0x374, 0x37E, 0x387, 0x483, 0x1100, 0x1161, 0x11A8, 0x2000, 0x2001,
                              0x2126, 0x212A, 0x212B, 0x2329, 0x232A, 0x2ADC, 0x302A, 0x3099, 0x309A, 0xF900, 0xFB1D] {
            #expect(!accepts(String(Character(Unicode.Scalar(value)!))), "U+\(String(value, radix: 16))")
        }
    }

    /// Random texts from letters that compose, marks, singletons, kana, jamo, CJK and emoji:
    /// two different ones that it accepts are never equal strings, and each one it accepts is
    /// unchanged by NFC.
    @Test func twoDifferentTextsItAcceptsAreNeverEqualStrings() {
        let pool: [String] = ["a", "e", "A", "=", "<", "\u{E9}", "\u{C5}", "\u{301}", "\u{338}", "\u{212B}", "\u{2126}",
                              "\u{304B}", "\u{304C}", "\u{3099}", "\u{AC00}", "\u{1100}", "\u{1161}", "\u{11A8}",
                              "\u{2260}", "\u{4FDD}", "\u{1F50B}", "\u{FE0F}", "\u{200D}", "\u{2026}", "\u{374}", "\u{2BC}"]
        var random = InvariantTests.SeededGenerator(state: 77)
        var texts: [String] = []
        for _ in 0..<400 {
            let length = Int.random(in: 1...4, using: &random)
            texts.append((0..<length).map { _ in pool[Int.random(in: 0..<pool.count, using: &random)] }.joined())
        }
        var accepted = texts.filter(accepts)
        accepted.append(contentsOf: ["Battery 20% \u{1F50B}", "\u{8A73}\u{7D30}\u{306F}\u{3053}\u{3061}\u{3089}", "Caf\u{E9} ok"])
        #expect(accepted.count > 50)
        for text in accepted {
            #expect(text.precomposedStringWithCanonicalMapping.utf8.elementsEqual(text.utf8))
        }
        for (index, first) in accepted.enumerated() {
            for second in accepted[(index + 1)...] where !first.utf8.elementsEqual(second.utf8) {
                #expect(first != second, "\(first.unicodeScalars.map(\.value)) and \(second.unicodeScalars.map(\.value))")
            }
        }
        // And the pairs that are equal strings with different bytes are never both accepted.
        for first in texts {
            for second in texts where first == second && !first.utf8.elementsEqual(second.utf8) {
                #expect(!(accepts(first) && accepts(second)))
            }
        }
    }
}
