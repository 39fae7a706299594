/// One input line that was understood: a toast to show, or something that happens to toasts.
public struct Event {
    public var kind: Kind
    /// When it happens on the stream clock; nil: at the clock's current time.
    public var at: Microseconds?
    /// The physical input line it came from (1-based); 0 when not from input.
    public var line: Int
    /// With screens on, the screen the event names (docs/events.md, "Screens"); nil for a
    /// `tick` or `dismiss_all` that names none, and for a show (its toast's field says).
    package var screen: ScreenKey?

    public init(_ kind: Kind, at: Microseconds? = nil, line: Int = 0) {
        self.kind = kind
        self.at = at
        self.line = line
    }

    /// What the event does (docs/events.md). A nil target means the most recently presented toast
    /// that is still visible.
    public enum Kind {
        case show(Toast)
        case dismiss(target: String?)
        case dismissAll
        case tap(target: String?)
        case longPress(target: String?)
        case swipe(target: String?)
        case drag(target: String?, phase: DragPhase, dy: Double)
        case tick
        /// The user closed or clicked the toast where it is really shown (a desktop
        /// notification): dismissed with reason `tap`, whatever its `dismiss_on_tap` says, since
        /// it is already gone from that screen. Never read from input.
        case closedByUser(target: String)
    }
}

extension Event.Kind {
    /// The toast of a `show`, taken out (the kind becomes `tick`), so that the caller holds
    /// the only reference and a stage can change it without copying it whole.
    mutating func takeToast() -> Toast? {
        guard case .show(let toast) = self else { return nil }
        self = .tick
        return toast
    }
}

/// The two ends of a drag gesture.
public enum DragPhase: String, Sendable {
    /// The finger comes down: the toast's timeout pauses.
    case begin
    /// The finger lifts: past the threshold it dismisses, otherwise the toast snaps back.
    case end
}
