import Foundation
import Testing

@testable import Footprint

/// The uploader against a storage side played by the test, so that a commit can be reported at
/// the exact moment a drain's read of the queue is out.
struct UploaderReadRaceTests {
    let directory = ScratchFolder()

    /// The next commands the uploader submits to the storage inbox (the storage thread's side).
    func nextCommands(_ inbox: CommandInbox) async -> [TrackerCommand] {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var commands: [TrackerCommand] = []
                _ = inbox.take(into: &commands)
                continuation.resume(returning: commands)
            }
        }
    }

    /// The reply of the one batch read among `commands`.
    func readReply(_ commands: [TrackerCommand]) -> (@Sendable (StoredBatch) -> Void)? {
        for command in commands {
            if case .storage(.readBatch(_, _, let reply)) = command { return reply }
        }
        return nil
    }

    /// Regression: a drain whose read came back empty set the queued count to 0 even when the
    /// storage thread had committed events and reported them while that read was out. Those
    /// events then waited for the next commit or flush: the interval, which only sends when the
    /// count is above 0, never sent them. The uploader now reads again.
    @Test func eventsReportedWhileAnEmptyReadIsOutAreReadAgain() async throws {
        var configuration = Tracker.Configuration.sending(to: "http://127.0.0.1:9/", storedIn: directory)
        configuration.flushAt = 10
        let inbox = CommandInbox(eventCapacity: 100)
        let uploader = Uploader(configuration: configuration, storage: inbox)
        // Hang guard: closing the inbox ends a wait for a command that never comes.
        let hangGuard = Task {
            try? await Task.sleep(nanoseconds: 120_000_000_000)
            inbox.close()
        }
        defer { hangGuard.cancel() }

        // A flush starts a drain, whose first read of the queue is held by the test.
        await uploader.queueChanged(count: 0, flushCompletions: [{}])
        let firstRead = try #require(readReply(await nextCommands(inbox)))
        // Meanwhile the storage thread commits three events: fewer than `flushAt`, so this
        // report triggers nothing by itself.
        await uploader.queueChanged(count: 3, flushCompletions: [])
        // The held read answers from before that commit: empty.
        firstRead(StoredBatch())
        // The drain reads again and finds the three events.
        let secondRead = readReply(await nextCommands(inbox))
        #expect(secondRead != nil, "the drain went idle with three events queued")
        secondRead?(StoredBatch())
        await uploader.stop()
        inbox.close()
    }
}
