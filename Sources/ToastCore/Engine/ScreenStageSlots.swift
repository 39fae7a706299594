/// What a stage that keys its state by screen (`ScreenKeyedStage`) keeps on the screen itself:
/// the head of the screen's part of the stage's table, and when a toast of the screen last
/// passed. Kept with the screen, it costs no entry in a table of screens of its own (a million
/// screens held at once is a service's everyday load).
struct ScreenStageSlot {
    /// dedup: the screen's keys, least recently passed first to go.
    var keys = CachedKeyList()
    /// rate_limit: the summaries pending for the screen's groups.
    var pendingSummaries: Int32 = 0
    /// When a toast of the screen last passed the stage (`Int64.min`: none).
    private var lastPassTime = Int64.min

    var lastPass: Microseconds? {
        get { lastPassTime == .min ? nil : lastPassTime }
        set { lastPassTime = newValue ?? .min }
    }

    var isEmpty: Bool { keys.isEmpty && pendingSummaries == 0 && lastPass == nil }

    /// rate_limit: the newest of the screen's groups (-1: none), each naming the one made
    /// before it (`RateLimitStage.GroupState.previousOfScreen`). Kept where dedup keeps the head
    /// of its keys, which a rate limit's slot has none of (a slot is one stage's).
    var newestGroup: Int32 {
        get { keys.newest }
        set { keys.newest = newValue }
    }
}

/// The start of a key of a stage that keeps every screen's state in one table: the screen's
/// serial, in its eight bytes (`ByteBuffer.appendSerial`).
enum ScreenSerialPrefix {
    static let count = MemoryLayout<Int>.size

    /// The serial a key starts with; nil for a key too short to have one.
    static func serial(of key: [UInt8]) -> Int? {
        key.withUnsafeBytes { serial(of: $0) }
    }

    static func serial(of key: UnsafeRawBufferPointer) -> Int? {
        key.count < count ? nil : key.loadUnaligned(as: Int.self)
    }
}

/// The ends of a list of keys in a `RecencyCache` (entry numbers, -1: none), and how many it
/// holds. Only the cache changes it.
struct CachedKeyList {
    var newest: Int32 = -1
    var oldest: Int32 = -1
    var count: Int32 = 0

    var isEmpty: Bool { count == 0 }
}

/// A screen's slots, one for each stage that keys its state by screen, by the number the
/// screen table gave the stage: the default stages have two such (dedup and rate_limit),
/// kept in the screen itself; more (several of a kind) in an array.
struct ScreenStageSlots {
    private var first = ScreenStageSlot()
    private var second = ScreenStageSlot()
    private var more: [ScreenStageSlot] = []

    subscript(index: Int) -> ScreenStageSlot {
        get {
            switch index {
            case 0: first
            case 1: second
            default: index - 2 < more.count ? more[index - 2] : ScreenStageSlot()
            }
        }
        _modify {
            switch index {
            case 0: yield &first
            case 1: yield &second
            default:
                while more.count <= index - 2 { more.append(ScreenStageSlot()) }
                yield &more[index - 2]
            }
        }
    }
}
