/// A host's environment as the host calls it, with no reference counts: through the
/// environment's type, on an unmanaged reference. Called through an `unowned(unsafe)`
/// existential, every call retained and released the environment (several times for each toast
/// shown), and reference counts are atomic operations.
///
/// Safe to use as `Host.environment` is: the pipeline that owns the host is the environment,
/// or owns it, and the public initializer keeps its environment alive in the host.
struct UnretainedEnvironment {
    private let object: Unmanaged<AnyObject>
    private let type: any CalledUnretainedEnvironment.Type

    init(_ environment: any HostEnvironment) {
        object = .passUnretained(environment)
        type = Swift.type(of: environment)
    }

    var now: Microseconds { type.now(of: object) }
    var timeDisplay: TimeDisplay { type.timeDisplay(of: object) }

    func schedule(_ timer: HostTimer, at time: Microseconds) {
        type.schedule(timer, at: time, on: object)
    }

    func write(_ record: consuming Record) {
        type.write(record, to: object)
    }
}

/// `HostEnvironment`'s calls made through its type on an unmanaged reference
/// (`UnretainedEnvironment`); every environment has them.
package protocol CalledUnretainedEnvironment: AnyObject {
    static func now(of object: Unmanaged<AnyObject>) -> Microseconds
    static func timeDisplay(of object: Unmanaged<AnyObject>) -> TimeDisplay
    static func schedule(_ timer: HostTimer, at time: Microseconds, on object: Unmanaged<AnyObject>)
    static func write(_ record: consuming Record, to object: Unmanaged<AnyObject>)
}

extension HostEnvironment {
    @inline(__always)
    private static func with<Result>(_ object: Unmanaged<AnyObject>, _ body: (Self) -> Result) -> Result {
        object._withUnsafeGuaranteedRef { body(unsafeDowncast($0, to: Self.self)) }
    }

    package static func now(of object: Unmanaged<AnyObject>) -> Microseconds { with(object) { $0.now } }
    package static func timeDisplay(of object: Unmanaged<AnyObject>) -> TimeDisplay { with(object) { $0.timeDisplay } }
    package static func schedule(_ timer: HostTimer, at time: Microseconds, on object: Unmanaged<AnyObject>) {
        with(object) { $0.schedule(timer, at: time) }
    }
    package static func write(_ record: consuming Record, to object: Unmanaged<AnyObject>) {
        // Handed into the closure through an optional it takes from: a closure cannot consume
        // what it captures.
        var handed: Record? = consume record
        object._withUnsafeGuaranteedRef { environment in
            if let record = handed.take() { unsafeDowncast(environment, to: Self.self).write(record) }
        }
    }
}
