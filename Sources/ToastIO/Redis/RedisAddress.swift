/// Where a Redis server is, as `--redis` names it: `redis://HOST[:PORT][/DB]` or a Unix
/// socket's path (`/run/redis/redis.sock`, `unix:///run/redis/redis.sock[?db=N]`).
package struct RedisAddress: Equatable, Sendable, CustomStringConvertible {
    package enum Place: Equatable, Sendable {
        case tcp(host: String, port: Int)
        case unix(path: String)
    }

    package var place: Place
    package var database: Int

    package init(place: Place, database: Int = 0) {
        self.place = place
        self.database = database
    }

    /// Reads `--redis`'s value; nil for one that is neither a `redis://` URL nor a path.
    package init?(_ text: String) {
        if text.hasPrefix("redis://") {
            let rest = text.dropFirst("redis://".count)
            let parts = rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            let hostPort = parts[0]
            guard !hostPort.isEmpty else { return nil }
            var database = 0
            if parts.count == 2, !parts[1].isEmpty {
                guard let number = Int(parts[1]), number >= 0 else { return nil }
                database = number
            }
            let host: Substring
            var port = 6379
            if let colon = hostPort.lastIndex(of: ":"), !hostPort.hasSuffix("]") {
                host = hostPort[..<colon]
                guard let number = Int(hostPort[hostPort.index(after: colon)...]), (1...65_535).contains(number) else { return nil }
                port = number
            } else {
                host = hostPort
            }
            let bare = host.hasPrefix("[") && host.hasSuffix("]") ? host.dropFirst().dropLast() : host
            guard !bare.isEmpty else { return nil }
            self.init(place: .tcp(host: String(bare), port: port), database: database)
        } else if text.hasPrefix("unix://") {
            let rest = text.dropFirst("unix://".count)
            let parts = rest.split(separator: "?", maxSplits: 1)
            guard let path = parts.first, path.hasPrefix("/") else { return nil }
            var database = 0
            if parts.count == 2 {
                guard parts[1].hasPrefix("db="), let number = Int(parts[1].dropFirst(3)), number >= 0 else { return nil }
                database = number
            }
            self.init(place: .unix(path: String(path)), database: database)
        } else if text.hasPrefix("/") || text.hasPrefix("./") {
            self.init(place: .unix(path: text))
        } else {
            return nil
        }
    }

    package var description: String {
        let base: String = switch place {
        case .tcp(let host, let port): "redis://\(host.contains(":") ? "[\(host)]" : host):\(port)"
        case .unix(let path): path
        }
        return database == 0 ? base : base + (base.hasPrefix("redis://") ? "/\(database)" : "?db=\(database)")
    }
}
