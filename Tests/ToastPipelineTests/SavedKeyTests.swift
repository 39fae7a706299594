import Testing
@testable import ToastCore

/// A stage's key in a saved state: readable where it has one of the forms the stages build,
/// hexadecimal otherwise, and always the same bytes when read back.
@Suite struct SavedKeyTests {
    /// The key bytes `build` appends.
    private func key(_ build: (inout ByteBuffer) -> Void) -> [UInt8] {
        var buffer = ByteBuffer(capacity: 64)
        build(&buffer)
        return buffer.bytes
    }

    /// The text a row holds for `key`, and the bytes read back from it.
    private func savedText(_ key: [UInt8]) throws -> (text: String, readBack: [UInt8]) {
        var writer = JSONWriter()
        key.withUnsafeBytes { SavedKey.write($0, to: &writer) }
        let text = String(decoding: writer.text, as: UTF8.self)
        let parsed = writer.value
        let value = try #require(parsed, "\(text) is JSON")
        #expect(SavedKey.value(key) == value, "the tree and the text are the same form")
        return (text, try SavedKey.bytes(value, path: "key"))
    }

    @Test func aToastsFieldsAreAnArrayOfTheirValues() throws {
        let toast = Toast(id: "t1", message: "Disk \"full\" — 0 bytes", role: "error")
        let fields: [FieldReference] = [.field(.message), .field(.subtitle), .field(.role)]
        let identity = key { toast.appendIdentity(fields: fields, roles: RoleTable.builtIn, to: &$0) }
        let saved = try savedText(identity)
        #expect(saved.text == #"["Disk \"full\" — 0 bytes",null,"error"]"#)
        #expect(saved.readBack == identity)
    }

    @Test func fieldsThatAreNotTextKeepTheirValues() throws {
        let toast = Toast(id: "t1", message: "Low battery",
                          extra: [JSONMember("level", .integer(5)), JSONMember("tags", .array([.string("a"), .bool(true)]))])
        let fields: [FieldReference] = [.extra("level"), .extra("tags"), .extra("missing")]
        let identity = key { toast.appendFieldsIdentity(fields: fields, roles: RoleTable.builtIn, to: &$0) }
        let saved = try savedText(identity)
        #expect(saved.text == #"[5,["a",true],null]"#)
        #expect(saved.readBack == identity)
    }

    @Test func aToastsOwnKeyIsNamed() throws {
        let toast = Toast(id: "t1", message: "Syncing", key: "sync-state")
        let identity = key { toast.appendIdentity(fields: [.field(.message)], roles: RoleTable.builtIn, to: &$0) }
        let saved = try savedText(identity)
        #expect(saved.text == #"{"key":"sync-state"}"#)
        #expect(saved.readBack == identity)
    }

    @Test func aGroupIsItsValue() throws {
        let toast = Toast(id: "t1", message: "New mail", source: "mail")
        let group = key { toast.appendKey(of: .field(.source), roles: RoleTable.builtIn, to: &$0) }
        let noGroup = key { toast.appendKey(of: .field(.subtitle), roles: RoleTable.builtIn, to: &$0) }
        #expect(try savedText(group).text == #"{"value":"mail"}"#)
        #expect(try savedText(group).readBack == group)
        #expect(try savedText(noGroup).text == #"{"value":null}"#)
        #expect(try savedText(noGroup).readBack == noGroup)
    }

    /// Bytes of no readable form (text that is not UTF-8, a length past the end, JSON text
    /// the stages never write) are hexadecimal; a key of an older state, hexadecimal, reads.
    @Test func otherBytesAreHexadecimal() throws {
        let notUTF8: [UInt8] = Array("F|s".utf8) + [0, 0, 0, 2, 0xC3, 0x28]
        let cut: [UInt8] = Array("F|s".utf8) + [0, 0, 0, 9] + Array("ab".utf8)
        let looseJSON: [UInt8] = Array("F|j".utf8) + [0, 0, 0, 3] + Array("1.0".utf8)
        for bytes in [notUTF8, cut, looseJSON, [0x00, 0xFF], []] {
            let saved = try savedText(bytes)
            let hex = bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
            #expect(saved.text == "\"\(hex)\"")
            #expect(saved.readBack == bytes)
        }
        #expect(try SavedKey.bytes(.string("467c2d"), path: "key") == Array("F|-".utf8))
    }

    @Test func aValueOfNoKeyFormIsRefusedNamingItsPath() {
        #expect(throws: SavedStateError("keys[0].key is not hexadecimal bytes")) { try SavedKey.bytes(.string("zz"), path: "keys[0].key") }
        #expect(throws: SavedStateError("keys[0].key.key is not a string")) {
            try SavedKey.bytes(.object([JSONMember("key", .integer(1))]), path: "keys[0].key")
        }
        #expect(throws: SavedStateError(#"k is not a saved key (an array of values, {"key": text}, {"value": value} or hexadecimal bytes)"#)) {
            try SavedKey.bytes(.integer(3), path: "k")
        }
    }
}
