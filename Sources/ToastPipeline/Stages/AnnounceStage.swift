/// The `announce` stage: the text a screen reader would say (SPEC §3 announce):
/// `<label>: <message>`, or just the message for an empty label, then `, <subtitle>` for a
/// non-empty subtitle. A role's own `announce` template or function replaces it.
public final class AnnounceStage: ToastStage {
    public init() {}

    public func process(_ toast: inout Toast, context: StageContext) -> StageVerdict {
        toast.announcement = Self.announcement(for: toast, roles: context.roles)
        return .pass
    }

    public static func announcement(for toast: Toast, roles: RoleTable) -> String {
        roles.withStyle(of: toast.role) { style in
            switch style.announcement {
            case .template(let template)?:
                return render(template, toast: toast, style: style, roles: roles)
            case .custom(let function)?:
                if let text = function(toast) { return text }
            case nil:
                break
            }
            return toast.withMessageBytes { message in
                toast.withSubtitleBytes { subtitle in joined(style.label, message, subtitle) }
                    ?? joined(style.label, message, nil)
            }
        }
    }

    /// `label: message, subtitle` (no `label: ` for an empty label, no `, subtitle` for none or
    /// an empty one), made in one step from the bytes.
    private static func joined(_ label: String, _ message: UnsafeRawBufferPointer, _ subtitle: UnsafeRawBufferPointer?) -> String {
        var label = label
        return label.withUTF8 { label in
            let subtitle = subtitle.flatMap { $0.isEmpty ? nil : $0 }
            let total = (label.isEmpty ? 0 : label.count + 2) + message.count + (subtitle.map { $0.count + 2 } ?? 0)
            return String(unsafeUninitializedCapacity: total) { out in
                var position = 0
                func put(_ bytes: UnsafeRawBufferPointer) {
                    for byte in bytes { out[position] = byte; position += 1 }
                }
                func put(_ first: UInt8, _ second: UInt8) {
                    out[position] = first
                    out[position + 1] = second
                    position += 2
                }
                if !label.isEmpty {
                    put(UnsafeRawBufferPointer(label))
                    put(UInt8(ascii: ":"), UInt8(ascii: " "))
                }
                put(message)
                if let subtitle {
                    put(UInt8(ascii: ","), UInt8(ascii: " "))
                    put(subtitle)
                }
                return position
            }
        }
    }

    /// Fills `{name}` with the field's value (`{label}`: the role's label); a missing field
    /// is `""` (SPEC §8). A `{` without a closing `}` stays as written.
    static func render(_ template: String, toast: Toast, style: RoleStyle, roles: RoleTable) -> String {
        var result = ""
        var rest = template[...]
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}") else {
                rest = rest[open...]
                break
            }
            let name = String(rest[rest.index(after: open)..<close])
            if name == "label" {
                result += style.label
            } else {
                switch toast.fieldValue(name, roles: roles) {
                case nil, .null?: break
                case .string(let text)?: result += text
                case let value?: result += JSONText.encode(value)
                }
            }
            rest = rest[rest.index(after: close)...]
        }
        result += rest
        return result
    }
}
