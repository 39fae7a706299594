extension Toast {
    /// Appends the toast's identity for dedup and debounce: its `key`, or the tuple of the
    /// values of `fields`. The two never collide, an absent field differs from `""`, and values
    /// compare byte for byte.
    func appendIdentity(fields: [FieldReference], roles: RoleTable, to buffer: inout ByteBuffer) {
        if let key {
            buffer.append(UInt8(ascii: "K"))
            buffer.appendUTF8(key)
        } else {
            buffer.append(UInt8(ascii: "F"))
            for field in fields {
                buffer.append(UInt8(ascii: "|"))
                appendKey(of: field, roles: roles, to: &buffer)
            }
        }
    }
}
