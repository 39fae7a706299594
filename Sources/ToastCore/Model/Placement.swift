/// Where a toast sits on screen; it decides which way a drag must go to dismiss it.
public enum Placement: String, Sendable, CaseIterable {
    case top, center, bottom
}

/// What a toast does to the toasts already on screen when it reaches the host (docs/lua.md, "config").
public enum Policy: String, Sendable, CaseIterable {
    /// Wait in line until nothing is visible.
    case enqueue
    /// Dismiss every visible toast and show at once.
    case replace
    /// Wait in line until fewer than `max_visible` are visible.
    case stack
}
