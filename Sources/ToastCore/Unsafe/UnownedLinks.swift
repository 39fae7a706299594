/// Lists of objects linked through the objects themselves, and a slot that lends an object,
/// all without reference counts: a screen moves to the end of the recency list and into the
/// list of screens to look at on every event, which then costs a few stores (reference counts
/// are atomic operations).
///
/// Safe to use as long as every object in a list or slot is held strongly elsewhere for as long
/// as it is there: the screen table holds each remembered screen, unlinks it and clears the
/// slots when it forgets it, and keeps a forgotten screen that is still in the touched list
/// until that list is emptied (`ScreenTable.remove`).

/// Where an object stands in a `RecencyList`.
struct RecencyLinks<Node: AnyObject> {
    fileprivate var older: Unmanaged<Node>?
    fileprivate var newer: Unmanaged<Node>?

    init() {}
}

/// An object that can be in one `RecencyList`.
protocol RecencyListed: AnyObject {
    var recencyLinks: RecencyLinks<Self> { get set }
}

/// Objects from the least recently appended to the most.
struct RecencyList<Node: RecencyListed> {
    private var least: Unmanaged<Node>?
    private var most: Unmanaged<Node>?

    init() {}

    var leastRecent: Node? { least?.takeUnretainedValue() }

    /// The least recent object that `predicate` accepts, walking toward the most recent.
    func leastRecent(where predicate: (Node) -> Bool) -> Node? {
        var next = least
        while let unretained = next {
            let node = unretained.takeUnretainedValue()
            if predicate(node) { return node }
            next = node.recencyLinks.newer
        }
        return nil
    }

    /// Every object, the least recent first.
    func inOrder() -> [Node] {
        var nodes: [Node] = []
        _ = leastRecent { nodes.append($0); return false }
        return nodes
    }

    /// Puts `node`, in no list, at the most recent end.
    mutating func append(_ node: Node) {
        let linked = Unmanaged.passUnretained(node)
        node.recencyLinks = RecencyLinks()
        node.recencyLinks.older = most
        most?._withUnsafeGuaranteedRef { $0.recencyLinks.newer = linked }
        most = linked
        if least == nil { least = linked }
    }

    /// Takes `node` out of the list (nothing when it is in none).
    mutating func remove(_ node: Node) {
        let (older, newer) = (node.recencyLinks.older, node.recencyLinks.newer)
        let unretained = Unmanaged.passUnretained(node).toOpaque()
        if let older {
            older._withUnsafeGuaranteedRef { $0.recencyLinks.newer = newer }
        } else if least?.toOpaque() == unretained {
            least = newer
        }
        if let newer {
            newer._withUnsafeGuaranteedRef { $0.recencyLinks.older = older }
        } else if most?.toOpaque() == unretained {
            most = older
        }
        node.recencyLinks = RecencyLinks()
    }
}

/// Whether an object is in a `TouchedList`, and the next one there.
struct TouchedLink<Node: AnyObject> {
    fileprivate var next: Unmanaged<Node>?
    fileprivate(set) var isTouched = false

    init() {}
}

/// An object that can be in one `TouchedList`.
protocol TouchListed: AnyObject {
    var touchedLink: TouchedLink<Self> { get set }
}

/// Objects each in it once, the last added first.
struct TouchedList<Node: TouchListed> {
    private var first: Unmanaged<Node>?

    init() {}

    /// Adds `node` unless it is in the list.
    mutating func add(_ node: Node) {
        guard !node.touchedLink.isTouched else { return }
        node.touchedLink.isTouched = true
        node.touchedLink.next = first
        first = .passUnretained(node)
    }

    /// The objects in the list, the last added first (the list stays as it is).
    func inOrder() -> [Node] {
        var nodes: [Node] = []
        var next = first
        while let unretained = next {
            let node = unretained.takeUnretainedValue()
            nodes.append(node)
            next = node.touchedLink.next
        }
        return nodes
    }

    /// Empties the list, calling `body` with each object, the last added first.
    mutating func takeAll(_ body: (Node) -> Void) {
        var next = first
        first = nil
        while let unretained = next {
            unretained._withUnsafeGuaranteedRef { node in
                next = node.touchedLink.next
                node.touchedLink = TouchedLink()
                body(node)
            }
        }
    }
}

/// An object lent without a reference count.
struct UnownedSlot<Node: AnyObject> {
    private var object: Unmanaged<Node>?

    init() {}

    var value: Node? {
        get { object?.takeUnretainedValue() }
        set { object = newValue.map(Unmanaged.passUnretained) }
    }

    var isEmpty: Bool { object == nil }

    /// `body` with the object; nil when there is none.
    @inline(__always)
    func with<Result>(_ body: (Node) -> Result) -> Result? {
        object?._withUnsafeGuaranteedRef(body)
    }

    /// Whether the slot holds `node`.
    func holds(_ node: Node) -> Bool {
        object?.toOpaque() == Unmanaged.passUnretained(node).toOpaque()
    }
}
