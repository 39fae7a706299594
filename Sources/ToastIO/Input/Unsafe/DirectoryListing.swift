#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The names in a directory (`toastscript diff` reads a directory of scripts).
///
/// Safe to use: each entry's name is read as the C string `readdir` gives, within the entry,
/// before the next call; nothing of the entry is kept.
package enum DirectoryListing {
    /// The names of the entries of `path`, `.` and `..` included; nil when it cannot be read.
    package static func names(in path: String) -> [String]? {
        guard let directory = opendir(path) else { return nil }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            names.append(withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            })
        }
        return names
    }
}
