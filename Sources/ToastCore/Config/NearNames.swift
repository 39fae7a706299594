/// Names in settings that are most likely typos, found when the settings are made (docs/lua.md,
/// "Nothing silent"): a `when` or `spare` that names a field no toast has but one two edits
/// away (it then matches only toasts with an extra field of that very name), and a role or a
/// stage defined under a name two edits from one that exists (the definition stands). Each is
/// a warning, not an error: the name may be meant.
package enum NearNames {
    /// The fields a match table may name besides extra fields: every show field, `priority`,
    /// `level` and `made_by`, and the field `screens.by` names.
    package static func knownFields(screenField: String?) -> [String] {
        ToastField.allCases.map(\.name) + ["priority", "level", "made_by"] + (screenField.map { [$0] } ?? [])
    }

    /// The warnings `settings` gives, in the order of stage names.
    package static func warnings(in settings: PipelineSettings) -> [String] {
        let fields = knownFields(screenField: settings.screens?.by)
        var warnings: [String] = []
        func look(at scope: StageScope?, stage: String, setting: String) {
            guard case .match(let table)? = scope else { return }
            warnings += fieldWarnings(in: table, fields: fields, place: "stage \(quoted(stage)): \(setting)")
        }
        for stage in Set(settings.scopes.keys).union(settings.spares.keys).sorted() {
            look(at: settings.scopes[stage], stage: stage, setting: "when")
            if case .adding(let scope)? = settings.spares[stage] { look(at: scope, stage: stage, setting: "spare") }
        }
        return warnings
    }

    /// The warnings a rule stated as a table gives: its `when` as a stage's does, and each
    /// field its `set` writes that is no field of a toast but near one (it then sets an extra
    /// field of that name).
    package static func warnings(rule: String, when: MatchTable, setting fields: [String], screenField: String?) -> [String] {
        let known = knownFields(screenField: screenField)
        return fieldWarnings(in: when, fields: known, place: "rule \(quoted(rule)): when")
            + fields.compactMap { name in
                guard !known.contains(name), let question = NameSuggestion.question(for: name, among: known) else { return nil }
                return "rule \(quoted(rule)): set: no field \(quoted(name)) (\(question)); an extra field of that name is set"
            }
    }

    /// A warning for each field `table` names that is not one of `fields` but two edits or
    /// fewer from one; `place` says whose match it is.
    private static func fieldWarnings(in table: MatchTable, fields: [String], place: String) -> [String] {
        table.fieldNames.compactMap { name in
            guard !fields.contains(name), let question = NameSuggestion.question(for: name, among: fields) else { return nil }
            return "\(place): no field \(quoted(name)) (\(question)); an extra field of that name matches as written"
        }
    }

    /// A warning when `name`, being defined as a `what` ("role", "stage"), is two edits or fewer
    /// from one of `existing`; nil otherwise.
    package static func definitionWarning(_ what: String, named name: String, existing: [String]) -> String? {
        guard !existing.contains(name),
              let question = NameSuggestion.question(for: name, among: existing) else { return nil }
        return "\(what) \(quoted(name)) is defined, and its name is close to one that exists: \(question) "
            + "(the definition stands)"
    }
}

extension MatchTable {
    /// The names of the fields the table compares, sorted.
    package var fieldNames: [String] { conditions.map(\.name) }
}
