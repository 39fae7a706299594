import ToastCore
import ToastIO
import ToastLua

/// A run as a state keeps it (docs/service.md, "The state file"; docs/scale.md for Redis):
/// which toastscript and which stages saved it, where the input and the output stood, Lua's
/// `store`, and the pipeline. A state file (`StateDatabase`) and a consumer's Redis hash
/// (`RedisStateHash`) both keep it as rows: the run's own (`runRows`) and the pipeline's.
///
/// `pipeline` is nil in the state a new run writes before its first toast: the run began
/// (the output's length is counted) and nothing else is kept yet.
struct SavedRun: Equatable, Sendable {
    /// The version of the rows' form, in a state file and a Redis hash alike: a toastscript
    /// reads its own and refuses any other.
    static let formatVersion: Int64 = 3

    var writtenBy: String
    var stages: [String]
    var screensBy: String?
    /// The shape of the records the run writes (nil in a state saved before it was kept).
    var output: OutputShape?
    /// Where the input stood after the last line taken; its offset counts only when
    /// `inputSeekable` (a regular file, read on from there after a restart).
    var input: InputPosition
    var inputSeekable: Bool
    /// Which file the input was (a regular file's), so that a restart on another is refused.
    var inputFile: FileIdentity?
    /// `--journal`: the cursor of the last entry taken, which a restart reads on after.
    var inputCursor: String?
    /// `--follow`: how far the file the input stood in had been read (a file gone by the
    /// restart took that much unread with it, at least).
    var inputLength: Int64?
    /// How the input's lines were read (`--input syslog --multiline`): a restart that would read
    /// the rest otherwise is refused (nil: a journal's entries, or a state saved before it was kept).
    var inputReading: String?
    /// The output's length once the records up to the input's position were synced (nil: the
    /// output is not a regular file).
    var outputLength: Int64?
    /// Whether the run had come to the end of its input (and drained).
    var ended: Bool
    var store: StoredValue
    /// The pipeline as its rows give it (`Pipeline.savedPipeline(fromRows:)`); nil before the
    /// first toast.
    var pipeline: SavedPipeline?
    /// The pipeline's rows it was put together from (a state file's), for the pipeline to
    /// write only what changes after the restore.
    var pipelineRowIDs: [SavedRowID] = []

    /// What is wrong with a state file, said as the run's message (exit 1, the file left as it was).
    enum ReadError: Error, Equatable {
        /// Not four lines of JSON objects, or a part that does not read back.
        case damaged(String)
        /// Saved in another format.
        case otherVersion(Int64, writtenBy: String)
    }

    /// Why a state saved whole as JSON lines (format 2 and before, in a file or a Redis key)
    /// is refused: its first line names the version that wrote it.
    static func earlier(firstLine: [UInt8]) -> ReadError {
        if let header = try? SavedObject(JSONScanner.value(of: firstLine), path: "line 1"),
           case .integer(let version)? = header.optional("toastscript_state") {
            return .otherVersion(version, writtenBy: (try? header.string("written_by")) ?? "an unknown version")
        }
        return .damaged("it is not a toastscript state")
    }

    init(writtenBy: String, stages: [String], screensBy: String?, output: OutputShape?, input: InputPosition, inputSeekable: Bool,
         inputFile: FileIdentity? = nil, outputLength: Int64?, ended: Bool, store: StoredValue, pipeline: SavedPipeline?) {
        self.writtenBy = writtenBy
        self.stages = stages
        self.screensBy = screensBy
        self.output = output
        self.input = input
        self.inputSeekable = inputSeekable
        self.inputFile = inputFile
        self.outputLength = outputLength
        self.ended = ended
        self.store = store
        self.pipeline = pipeline
    }
}

extension SavedRun {
    /// The run once its pipeline is restored, as a resumed run keeps it: without its screens'
    /// rows, the most of its memory, which the pipeline now holds.
    var restored: SavedRun {
        var run = self
        run.pipeline?.screenRows = SavedScreenRows()
        return run
    }

    /// An input file's identity as line 2 keeps it; the numbers that may not fit a JSON integer
    /// (an inode, a checksum) as hexadecimal text.
    static func saved(_ identity: FileIdentity) -> JSONValue {
        .object([JSONMember("device", .string(String(identity.device, radix: 16))),
                 JSONMember("inode", .string(String(identity.inode, radix: 16))),
                 JSONMember("sampled", .integer(Int64(identity.sampledLength))),
                 JSONMember("checksum", .string(String(identity.checksum, radix: 16)))])
    }

    static func fileIdentity(_ saved: JSONValue) throws -> FileIdentity {
        let object = try SavedObject(saved, path: "line 2: input_file")
        func hex(_ name: String) throws -> UInt64 {
            guard let value = UInt64(try object.string(name), radix: 16) else {
                throw SavedStateError("line 2: input_file.\(name) is not a hexadecimal number")
            }
            return value
        }
        let sampled = try object.integer("sampled")
        guard (0...Int64(FileIdentity.sampleLimit)).contains(sampled) else {
            throw SavedStateError("line 2: input_file.sampled is not between 0 and \(FileIdentity.sampleLimit)")
        }
        return FileIdentity(device: try hex("device"), inode: try hex("inode"), sampledLength: Int(sampled),
                            checksum: try hex("checksum"))
    }
}

extension SavedRun {
    /// The rows of the run table of a state file: everything but the pipeline, one row each.
    var runRows: [(name: String, value: JSONValue)] {
        [("format", .integer(Self.formatVersion)), ("written_by", .string(writtenBy)),
         ("stages", .array(stages.map(JSONValue.string))), ("screens_by", screensBy.map(JSONValue.string) ?? .null),
         ("output", output?.savedState ?? .null), ("input", input.savedState), ("input_seekable", .bool(inputSeekable)),
         ("input_file", inputFile.map(Self.saved) ?? .null), ("output_length", outputLength.map(JSONValue.integer) ?? .null),
         ("ended", .bool(ended)), ("store", store.savedState)]
            + optionalRows
    }

    /// The rows only some inputs have: the journal's cursor, how far a followed file was read,
    /// how lines were read.
    private var optionalRows: [(name: String, value: JSONValue)] {
        var rows: [(name: String, value: JSONValue)] = []
        if let inputCursor { rows.append(("input_cursor", .string(inputCursor))) }
        if let inputLength { rows.append(("input_length", .integer(inputLength))) }
        if let inputReading { rows.append(("input_reading", .string(inputReading))) }
        return rows
    }

    /// A state file's run as its rows hold it; the pipeline is put together from its rows and
    /// its screens' rows (none: a run that had not begun).
    init(runRows run: [String: JSONValue], pipelineRows rows: [SavedRowID: JSONValue],
         screenRows: SavedScreenRows = SavedScreenRows()) throws(ReadError) {
        func row(_ name: String) throws -> JSONValue {
            guard let value = run[name] else { throw SavedStateError("the run has no \(name)") }
            return value
        }
        guard case .integer(let version)? = run["format"] else { throw .damaged("it has no format") }
        let writtenBy: String
        if case .string(let text)? = run["written_by"] { writtenBy = text } else { writtenBy = "an unknown version" }
        guard version == Self.formatVersion else { throw .otherVersion(version, writtenBy: writtenBy) }
        do {
            let stages = try [String](savedState: try row("stages"), path: "run stages")
            self.init(writtenBy: writtenBy, stages: stages,
                      screensBy: try String?(savedState: try row("screens_by"), path: "run screens_by"),
                      output: try row("output") == .null ? nil : try OutputShape(savedState: try row("output")),
                      input: try InputPosition(savedState: try row("input")),
                      inputSeekable: try SavedObject(.object([JSONMember("v", try row("input_seekable"))]), path: "run").bool("v"),
                      inputFile: try row("input_file") == .null ? nil : try Self.fileIdentity(try row("input_file")),
                      outputLength: try Int64?(savedState: try row("output_length"), path: "run output_length"),
                      ended: try SavedObject(.object([JSONMember("v", try row("ended"))]), path: "run").bool("v"),
                      store: try StoredValue(savedState: try row("store"), path: "run store"),
                      pipeline: rows.isEmpty ? nil : try Pipeline.savedPipeline(fromRows: rows, screenRows: screenRows, stages: stages))
            pipelineRowIDs = Array(rows.keys) + screenRows.serials.map { SavedRowID(kind: .screen, number: $0) }
            inputCursor = try String?(savedState: run["input_cursor"] ?? .null, path: "run input_cursor")
            inputLength = try Int64?(savedState: run["input_length"] ?? .null, path: "run input_length")
            inputReading = try String?(savedState: run["input_reading"] ?? .null, path: "run input_reading")
        } catch {
            throw .damaged("\(error)")
        }
    }
}
