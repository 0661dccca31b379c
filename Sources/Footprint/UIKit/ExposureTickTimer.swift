#if canImport(UIKit) && !os(watchOS)
    import Foundation

    /// Sends list exposure its `.tick` at the recorder's next deadline, so dwell timers and
    /// settling fire while nothing moves. One timer per list, moved only when the deadline
    /// changes (not at every scroll frame), in the run loop's common modes so it also fires
    /// while a finger is on the screen.
    @MainActor
    final class ExposureTickTimer {
        private var timer: Timer?
        private var deadline: Timestamp?

        /// Fires `tick` at `deadline` (replacing the previous deadline); `nil` cancels.
        func schedule(
            at deadline: Timestamp?, now: Timestamp, tick: @escaping @MainActor @Sendable () -> Void
        ) {
            guard deadline != self.deadline else { return }
            cancel()
            self.deadline = deadline
            guard let deadline else { return }
            let milliseconds = max(0, deadline.millisecondsSince1970 - now.millisecondsSince1970)
            let timer = Timer(timeInterval: Double(milliseconds) / 1000, repeats: false) { [weak self] _ in
                MainActor.assumeIsolated {
                    self?.timer = nil
                    self?.deadline = nil
                    tick()
                }
            }
            RunLoop.main.add(timer, forMode: .common)
            self.timer = timer
        }

        /// Cancels the pending tick.
        func cancel() {
            timer?.invalidate()
            timer = nil
            deadline = nil
        }
    }
#endif
