import Foundation
import Testing

/// The run's records as short lines: `t present id message role priority [count ids]`,
/// `t dismiss id reason`, `t drop id stage reason role message`; every toast checked to
/// end exactly once.
func recordStory(_ script: String, _ events: [String], _ arguments: [String] = []) throws -> [String] {
    let result = try runBinary(["--format", "json", "-e", script] + arguments, stdin: events.joined(separator: "\n") + "\n")
    #expect(result.status == 0, "\(result.stderr)")
    var endings: [String: [String]] = [:]
    let lines = try jsonRecords(result.stdout).map { record -> String in
        let id = "\(record["id"] ?? "")"
        let event = record["event"] as? String ?? ""
        endings[id, default: []].append(event)
        var line = "\(record["t"] ?? "") \(event) \(id)"
        switch event {
        case "present":
            line += " \(record["message"] ?? "") \(record["role"] ?? "") \(record["priority"] ?? "")"
            if let extra = record["extra"] as? [String: Any], let count = extra["count"] {
                line += " count=\(count) ids=\((extra["ids"] as? [String])?.joined(separator: ",") ?? "")"
            }
        case "dismiss": line += " \(record["reason"] ?? "")"
        default: line += " \(record["stage"] ?? "") \(record["reason"] ?? "") \(record["role"] ?? "") \(record["message"] ?? "")"
        }
        return line
    }
    for (id, events) in endings {
        #expect(events == ["drop"] || events == ["present", "dismiss"], "\(id): \(events)")
    }
    return lines
}
