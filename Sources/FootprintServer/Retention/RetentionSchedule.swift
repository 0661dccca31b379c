import Dispatch
import FootprintWire

/// Runs retention (``SQLiteEventStore/applyRetention(defaultDays:now:chunk:)``) on its own
/// queue at start and then every ``Configuration/intervalSeconds``, so old days go at least
/// daily while ingest goes on (the deletion runs in short chunks on the writer).
final class RetentionSchedule: @unchecked Sendable {
    /// When and how retention runs.
    struct Configuration: Sendable {
        /// Days of events kept for projects without their own setting; `nil` keeps them all.
        var defaultDays: Int?
        /// Seconds between runs. Default 3,600 (a run that finds nothing to delete costs one
        /// indexed read per project).
        var intervalSeconds = 3_600.0
        /// Events deleted per writer transaction. Default 1,000.
        var chunk = 1_000
    }

    private let queue = DispatchQueue(label: "footprint.retention")
    private let timer: any DispatchSourceTimer

    init(stores: Stores, clock: any Clock, configuration: Configuration) {
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now(), repeating: max(1, configuration.intervalSeconds))
        timer.setEventHandler {
            // Nothing to keep short: the clock is not even read (a test's clock may count reads).
            guard configuration.defaultDays != nil || (try? stores.metadata.anyProjectHasRetention()) == true
            else {
                return
            }
            // A failed run (the store closing, a full disk) is retried at the next interval.
            _ = try? stores.events.applyRetention(
                defaultDays: configuration.defaultDays, now: clock.now(), chunk: configuration.chunk)
        }
        timer.resume()
    }

    /// Stops the timer and waits for a run in progress.
    func stop() {
        timer.cancel()
        queue.sync {}
    }
}
