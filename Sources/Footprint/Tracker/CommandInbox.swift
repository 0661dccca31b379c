import Foundation

/// The hand-off between the app's threads and the storage thread: a locked array that callers
/// append to in well under a microsecond, and that the storage thread empties in one swap.
///
/// The only shared mutable state on the caller's path, so the only `@unchecked Sendable` type:
/// every field is read and written under `condition`.
final class CommandInbox: @unchecked Sendable {
    private let condition = NSCondition()
    private var commands: [TrackerCommand] = []
    private var pendingEvents = 0
    private var droppedEvents = 0
    private var consumerIsWaiting = false
    private var closed = false
    private var optedOut = false
    private let eventCapacity: Int

    /// Creates an inbox holding at most `eventCapacity` events not yet taken.
    init(eventCapacity: Int) {
        self.eventCapacity = max(1, eventCapacity)
        commands.reserveCapacity(256)
    }

    /// Appends `command`. An event is dropped (and counted) while opted out or when
    /// `eventCapacity` events are already waiting. Returns whether it was accepted.
    @discardableResult
    func submit(_ command: TrackerCommand) -> Bool {
        condition.lock()
        if command.isEvent {
            if optedOut {
                condition.unlock()
                return false
            }
            if pendingEvents >= eventCapacity {
                droppedEvents += 1
                condition.unlock()
                return false
            }
            pendingEvents += 1
        }
        if case .setOptedOut(let value) = command { optedOut = value }
        commands.append(command)
        let wake = consumerIsWaiting
        condition.unlock()
        if wake { condition.signal() }
        return true
    }

    /// Sets the opt-out flag without a command (the stored state, read at start).
    func restoreOptedOut(_ value: Bool) {
        condition.lock()
        optedOut = value
        condition.unlock()
    }

    /// Waits until commands are waiting (or the inbox is closed), then moves them all into
    /// `batch` (emptied first). Returns `false` once closed and empty.
    /// - Returns: whether to go on, and how many events were dropped for capacity since the
    ///   last call.
    func take(into batch: inout [TrackerCommand]) -> (open: Bool, dropped: Int) {
        batch.removeAll(keepingCapacity: true)
        condition.lock()
        while commands.isEmpty && !closed {
            consumerIsWaiting = true
            condition.wait()
            consumerIsWaiting = false
        }
        swap(&commands, &batch)
        pendingEvents = 0
        let dropped = droppedEvents
        droppedEvents = 0
        let open = !(closed && batch.isEmpty)
        condition.unlock()
        return (open, dropped)
    }

    /// Lets the consumer finish what is waiting and stop.
    func close() {
        condition.lock()
        closed = true
        condition.unlock()
        condition.broadcast()
    }
}
