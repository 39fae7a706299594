import Glibc
import ToastCore

/// The shape of what a run writes, as a `--state` keeps it (docs/service.md, "The state
/// file"): the record format, the zone dates are shown in, where the records go, and whether
/// they carry colour. A restart that would write otherwise stops before it writes anything, so
/// one output never holds records of two shapes (JSON lines, then text).
struct OutputShape: Equatable, Sendable {
    /// `--format`: `json`, `text`, `speech`, `html`.
    var format: String
    /// `--tz`: `local` or `utc`.
    var zone: String
    /// `--output`'s absolute path, `stdout`, or `redis:STREAM` (`--to`).
    var destination: String
    /// Whether the records carry colour (text to a terminal, or `--color always`).
    var color: Bool

    init(format: String, zone: String, destination: String, color: Bool) {
        (self.format, self.zone, self.destination, self.color) = (format, zone, destination, color)
    }

    /// What a run of shape `asked` would write differently from this saved one, in words:
    /// `the state was written with --format json; this run asks for --format text`; nil when
    /// it writes the same.
    func difference(from asked: OutputShape) -> String? {
        if format != asked.format { return "the state was written with --format \(format); this run asks for --format \(asked.format)" }
        if destination != asked.destination {
            return "the state was written to \(Self.describe(destination)); this run writes to \(Self.describe(asked.destination))"
        }
        if zone != asked.zone { return "the state was written with --tz \(zone); this run asks for --tz \(asked.zone)" }
        if color != asked.color {
            return "the state was written \(color ? "with" : "without") colour; this run writes \(asked.color ? "with" : "without") it (--color)"
        }
        return nil
    }

    var savedState: JSONValue {
        .object([JSONMember("format", .string(format)), JSONMember("tz", .string(zone)),
                 JSONMember("to", .string(destination)), JSONMember("color", .bool(color))])
    }

    init(savedState: JSONValue) throws {
        let object = try SavedObject(savedState, path: "line 1: output")
        self.init(format: try object.string("format"), zone: try object.string("tz"), destination: try object.string("to"),
                  color: try object.bool("color"))
    }

    private static func describe(_ destination: String) -> String {
        destination.hasPrefix("/") ? "--output " + destination : destination
    }

    /// `path` as the file it names, links and `..` resolved (the output exists once it is
    /// opened, so two names of one file compare equal); else from the working directory.
    static func absolute(_ path: String) -> String {
        if let resolved = realpath(path, nil) {
            defer { free(resolved) }
            return String(cString: resolved)
        }
        guard !path.hasPrefix("/") else { return path }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return path }
        let directory = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (directory.hasSuffix("/") ? directory : directory + "/") + (path.hasPrefix("./") ? String(path.dropFirst(2)) : path)
    }
}
