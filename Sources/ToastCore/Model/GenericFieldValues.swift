/// The values a toast holds for the fields the schema keeps in general
/// (`ToastField.Storage.generic`): only those set, in a short list, with nothing allocated
/// while there are none. A field gets this storage until a stage reads it on every toast;
/// then a property of its own in `Toast.Fields` reads faster.
@usableFromInline package struct GenericFieldValues {
    private var values: [(field: ToastField, value: Toast.FieldValue)]? = nil

    package init() {}

    /// The value set for `field`; nil when none was (the field's default holds).
    func value(of field: ToastField) -> Toast.FieldValue? {
        values?.first { $0.field == field }?.value
    }

    /// Sets `field` to `value`.
    mutating func set(_ field: ToastField, to value: Toast.FieldValue) {
        var values = self.values.take() ?? []
        if let index = values.firstIndex(where: { $0.field == field }) {
            values[index].value = value
        } else {
            values.append((field, value))
        }
        self.values = values
    }
}
