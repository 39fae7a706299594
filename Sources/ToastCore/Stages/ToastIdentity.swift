extension Toast {
    /// Appends the toast's identity for dedup: its `key`, or the tuple of the
    /// values of `fields`. The two never collide, an absent field differs from `""`, and values
    /// compare byte for byte.
    func appendIdentity(fields: [FieldReference], roles: RoleTable, to buffer: inout ByteBuffer) {
        if let key {
            buffer.append(UInt8(ascii: "K"))
            buffer.appendUTF8(key)
        } else {
            appendFieldsIdentity(fields: fields, roles: roles, to: &buffer)
        }
    }

    /// Appends the tuple of the values of `fields` alone (debounce's key: a toast's `key` is
    /// dedup's, and counts here only where `fields` names it).
    func appendFieldsIdentity(fields: [FieldReference], roles: RoleTable, to buffer: inout ByteBuffer) {
        buffer.append(UInt8(ascii: "F"))
        // Each field read where it is: a `for` over the array copied each one out (and
        // destroyed the copy), an extra field's name included. Indices stay within the buffer.
        fields.withUnsafeBufferPointer { fields in
            for index in fields.indices {
                buffer.append(UInt8(ascii: "|"))
                appendKey(of: fields[index], roles: roles, to: &buffer)
            }
        }
    }
}

extension Toast {
    /// The value of the field that groups toasts (the rate limit's and digest's `key`): absent
    /// or null is "no value", the one shared group; `""` is a value of its own.
    func groupValue(of field: FieldReference, roles: RoleTable) -> JSONValue? {
        switch value(of: field, roles: roles) {
        case nil, .null?: nil
        case let value?: value
        }
    }
}

extension JSONValue {
    /// A group's value as a summary or digest names it (its `source`, `{group}`): a string as
    /// it is, anything else as JSON.
    var groupLabel: String {
        if case .string(let text) = self { return text }
        return JSONText.encode(self)
    }
}
