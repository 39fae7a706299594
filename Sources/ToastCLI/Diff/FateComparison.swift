import ToastCore

/// The toasts whose fate differs between two runs of the same input, grouped by how it
/// changed ("41 toasts now dropped by rule "quiet debug"", "3 now shown that were
/// rate-limited").
package struct FateComparison {
    /// One toast whose fate differs; a side's fate is nil when that run had no such toast.
    package struct Difference {
        package var id: String
        package var message: String
        package var old: ToastFate?
        package var new: ToastFate?
        /// With screens on, the toast's screen.
        package var screen: ScreenKey?
    }

    package struct Group {
        package var change: String
        package var differences: [Difference]
    }

    package private(set) var groups: [Group] = []
    /// Toasts in either run.
    package private(set) var toastCount = 0
    package var differenceCount: Int { groups.reduce(0) { $0 + $1.differences.count } }

    package init(old: FateCollector, new: FateCollector) {
        var differences: [Difference] = []
        for entry in old.entries {
            toastCount += 1
            let other = new.entry(forKey: entry.key)
            if let other, entry.fate.isSame(as: other.fate) { continue }
            differences.append(Difference(id: other?.id ?? entry.id, message: other?.message ?? entry.message,
                                          old: entry.fate, new: other?.fate, screen: entry.screen))
        }
        for entry in new.entries where old.entry(forKey: entry.key) == nil {
            toastCount += 1
            differences.append(Difference(id: entry.id, message: entry.message, old: nil, new: entry.fate,
                                          screen: entry.screen))
        }
        var order: [String] = []
        var byChange: [String: [Difference]] = [:]
        for difference in differences {
            let change = Self.change(from: difference.old, to: difference.new)
            if byChange[change] == nil { order.append(change) }
            byChange[change, default: []].append(difference)
        }
        groups = order.map { Group(change: $0, differences: byChange[$0] ?? []) }
            .sorted { $0.differences.count > $1.differences.count }
    }

    /// How a toast's fate changed, in words that group like toasts together.
    static func change(from old: ToastFate?, to new: ToastFate?) -> String {
        switch (old, new) {
        case (nil, let new?): return "only in NEW, \(new.category)"
        case (let old?, nil): return "only in OLD, \(old.category)"
        case (.presented?, .presented?): return "shown at other times"
        case (.presented?, let new?): return "now \(new.category)"
        case (let old?, .presented?): return "now shown that were \(old.category)"
        case (let old?, let new?) where old.category == new.category: return "\(new.category) for another reason"
        case (let old?, let new?): return "now \(new.category) that were \(old.category)"
        case (nil, nil): return "unchanged"
        }
    }
}
