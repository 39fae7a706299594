extension Toast {
    /// The names of the fields that differ from `earlier`, in record order (the fields of a show,
    /// then extra fields by name, then `symbol`, `glyph`, `color` and `announcement`): what a
    /// trace's `change` verdict lists. Read only when tracing.
    public func changedFields(since earlier: Toast) -> [String] {
        if sharesStorage(with: earlier) { return [] }
        var names: [String] = []
        func check<Value: Equatable>(_ name: String, _ value: (Toast) -> Value) {
            if value(self) != value(earlier) { names.append(name) }
        }
        for field in ToastField.changeable where !hasSameValue(of: field, as: earlier) {
            names.append(field.name)
        }
        if !hasSameExtra(as: earlier) {
            let extra = self.extra
            let earlierExtra = earlier.extra
            let extraNames = Set(extra.map(\.name)).union(earlierExtra.map(\.name)).sorted()
            for name in extraNames where extra.last(where: { $0.name == name })?.value
                != earlierExtra.last(where: { $0.name == name })?.value {
                names.append(name)
            }
        }
        check("symbol") { $0.style?.symbol }
        check("glyph") { $0.style?.glyph }
        check("color") { $0.style?.color }
        check("announcement") { $0.announcement }
        return names
    }
}
