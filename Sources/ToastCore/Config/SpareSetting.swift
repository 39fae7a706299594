/// What a script said of a stage's `spare`: `false`, or a match added to the kind's default.
package enum SpareSetting: Equatable {
    /// `spare = false`: the stage spares nothing, its kind's default removed.
    case off
    /// A match table or function; a toast either it or the kind's default matches is spared.
    case adding(StageScope)

    /// The matches that spare a toast from a stage whose kind declares `kindDefault`, that
    /// default first.
    package func spares(withDefault kindDefault: DefaultSpare) -> [StageScope] {
        switch self {
        case .off: []
        case .adding(let scope): (kindDefault.scope.map { [$0] } ?? []) + [scope]
        }
    }

    /// Reads a stage's `spare` (at `path`, e.g. `errors.spare`): `false`, a match table or a
    /// function.
    package static func read(_ value: ConfigValue, path: String) throws -> SpareSetting {
        switch value {
        case .bool(false): return .off
        case .function, .table: return .adding(try StageScope.read(value, path: path))
        default: throw ConfigError("\(path) must be a match table, a function or false, not \(value.typeName)")
        }
    }
}
