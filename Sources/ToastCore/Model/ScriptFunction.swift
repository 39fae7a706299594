/// A function a script handed to a setting (a role's `announce`): which function, not the
/// function itself, so settings stay plain values. A `ScriptFunctionRunner` (the scripts'
/// runtime) calls it.
public struct ScriptFunction: Hashable, Sendable {
    /// The function's number in the scripts' runtime.
    package let number: Int32
    /// Where the function was defined, `FILE:LINE`, for messages.
    package let place: String

    package init(number: Int32, place: String) {
        self.number = number
        self.place = place
    }
}
