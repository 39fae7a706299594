import ToastCore
import ToastIO
import ToastLua

/// How a run with `--state` goes on from a saved one: the pipeline restored, the output cut
/// back to the length the last checkpoint counted, and the input read on from the offset it
/// saved (docs/service.md). Everything is checked before anything changes, so a state that
/// does not fit stops the run (exit 1) with the state file, the output and the input as they were.
enum RunResumption {
    /// Restores `saved` into `pipeline` and positions the output and the input; returns where
    /// reading begins. `place` names where the state was kept.
    static func resume(_ saved: SavedRun, place: StatePlace, pipeline: Pipeline, settings: PipelineSettings,
                       input: any ByteSource, inputName: String, output: FileDescriptorSink?) throws(StateRefusal) -> InputPosition {
        let refuse = { (problem: String) in StateRefusal(message: SavedRun.ReadError.refusal(problem, place: place)) }
        if let savedPipeline = saved.pipeline {
            guard saved.stages == pipeline.stageNames else {
                throw refuse("\(place.noun) was saved by a run with the stages " + saved.stages.joined(separator: ", ")
                             + ", and these scripts run " + pipeline.stageNames.joined(separator: ", "))
            }
            guard saved.screensBy == settings.screens?.by else {
                throw refuse("\(place.noun) was saved by a run with " + (saved.screensBy.map { "screens by \($0)" } ?? "no screens")
                             + ", and these scripts ask for " + (settings.screens.map { "screens by \($0.by)" } ?? "none"))
            }
            do {
                try pipeline.restore(from: savedPipeline)
            } catch {
                throw refuse("\(place.noun) is damaged (\(error))")
            }
        }
        // A followed file and the journal find their saved place themselves, or say why they
        // cannot (FollowedFile, JournalSource).
        let followed = input is FollowedFile || input is JournalSource
        let file = input as? FileDescriptorSource
        let readsOn = saved.inputSeekable && file?.size != nil
        if readsOn, let size = file?.size, size < saved.input.offset {
            throw refuse("the input has \(size) bytes, fewer than the \(saved.input.offset) read when it was saved: "
                         + "it is not the input the state was saved with")
        }
        if readsOn, saved.pipeline != nil, let file, let identity = saved.inputFile, let difference = identity.difference(from: file) {
            throw refuse("\(inputName) is not the file this state was reading (\(difference))")
        }
        var cut: Int64?
        if let length = saved.outputLength, let output, let current = output.length {
            guard current >= length else {
                throw refuse("\(output.name) has \(current) bytes, fewer than the \(length) written when it was saved: "
                             + "it is not the output the state was saved with")
            }
            cut = length
        }
        // Nothing has changed yet; from here on the run goes on from the saved one.
        if let cut, let output, let reason = output.truncate(to: cut) {
            throw StateRefusal(message: "cannot cut \(output.name) back to \(cut) bytes: \(reason)")
        }
        guard saved.pipeline != nil else { return InputPosition() }
        if followed { return saved.input }
        if readsOn, let file {
            guard file.seek(to: saved.input.offset) else { throw StateRefusal(message: "\(place.name): the input cannot be read from byte \(saved.input.offset)") }
            return saved.input
        }
        // A pipe has no offset: what comes is new input, its lines counted from 1; the ids of
        // shows without one go on from the saved count, so they do not meet held ones.
        return InputPosition(shows: saved.input.shows)
    }
}

extension SavedRun.ReadError {
    /// The message for a state kept at `place` that cannot be read.
    func message(place: StatePlace) -> String {
        switch self {
        case .damaged(let problem):
            return Self.refusal("\(place.noun) is damaged (\(problem))", place: place)
        case .otherVersion(let version, let writtenBy):
            return Self.refusal("\(place.noun) was saved by \(writtenBy) in state format \(version), and this toastscript reads format "
                                + "\(place.formatVersion)", place: place)
        }
    }

    /// How every state that does not fit is refused: what is wrong, and that nothing changed.
    static func refusal(_ problem: String, place: StatePlace) -> String {
        "\(place.name): \(problem); it was left as it is, and --state-reset starts afresh"
    }
}

/// Where a run's state is kept, as messages name it: `--state FILE` ("the file"), or a Redis
/// key ("the state").
struct StatePlace {
    var name: String
    var noun: String
    /// The format this toastscript keeps there.
    var formatVersion: Int64

    static func file(_ path: String) -> StatePlace {
        StatePlace(name: "--state \(path)", noun: "the file", formatVersion: SavedRun.formatVersion)
    }
    static func redis(_ description: String) -> StatePlace {
        StatePlace(name: description, noun: "the state", formatVersion: SavedRun.formatVersion)
    }
}
