import Synchronization

/// How long checkpoints (or Redis commits) took (`--metrics`), in buckets as a Prometheus
/// histogram counts them: recorded on the thread that saves them, read by the pipeline's
/// when it writes the metrics.
package final class DurationHistogram: Sendable {
    /// The buckets' upper bounds, in seconds.
    package static let bounds: [Double] = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
    private let counts = Mutex((buckets: [Int](repeating: 0, count: bounds.count), count: 0, sum: 0.0))

    package init() {}

    package func record(seconds: Double) {
        counts.withLock { counts in
            for (index, bound) in Self.bounds.enumerated() where seconds <= bound { counts.buckets[index] += 1 }
            counts.count += 1
            counts.sum += seconds
        }
    }

    /// Each bucket's count (cumulative, as Prometheus counts them: a duration is in every bucket
    /// whose bound it is within), the count and the sum of the durations.
    package var snapshot: (buckets: [Int], count: Int, sum: Double) {
        counts.withLock { ($0.buckets, $0.count, $0.sum) }
    }
}
