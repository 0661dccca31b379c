import FootprintSQLite
import Foundation

/// The storage thread's loop: takes every command waiting in the inbox, builds, validates and
/// encodes the events, and writes them in one transaction per turn; then serves the uploader.
///
/// Confined to its own thread (created by ``run(configuration:inbox:uploader:)``), so it needs
/// no lock: everything it owns (the queue, the assembler) is touched only there.
final class StorageWorker {
    private let configuration: Tracker.Configuration
    private let inbox: CommandInbox
    private let uploader: Uploader
    private let sessionStarts: SessionStartObservers
    private var queue: EventQueue?
    private var assembler: EventAssembler
    private var random = IdentifierRandomness()
    private var lostWithoutQueue: Int64 = 0
    /// Whether the queue is not opened yet because ``Tracker/Configuration/requiresConsent``
    /// waits for the first opt-in.
    private var awaitingConsent = false
    /// The most commands applied in one transaction.
    static let turnSize = 2048

    /// Starts the storage thread.
    static func start(
        configuration: Tracker.Configuration, inbox: CommandInbox, uploader: Uploader,
        sessionStarts: SessionStartObservers
    ) {
        let thread = Thread {
            StorageWorker(
                configuration: configuration, inbox: inbox, uploader: uploader, sessionStarts: sessionStarts
            ).run()
        }
        thread.name = "Footprint.storage"
        thread.qualityOfService = .utility
        thread.start()
    }

    private init(
        configuration: Tracker.Configuration, inbox: CommandInbox, uploader: Uploader,
        sessionStarts: SessionStartObservers
    ) {
        self.configuration = configuration
        self.inbox = inbox
        self.uploader = uploader
        self.sessionStarts = sessionStarts
        let now = configuration.clock.now()
        assembler = EventAssembler(
            anonymousId: UUIDv7.make(at: now),
            session: SessionState(timeoutMilliseconds: Int64(configuration.sessionTimeoutSeconds * 1000)),
            lifecycle: AppLifecycleState(
                switches: configuration.lifecycleEvents,
                current: AppRelease(
                    version: configuration.context.appVersion, build: configuration.context.appBuild),
                remembered: nil),
            context: configuration.context.json)
    }

    private func run() {
        openQueue()
        notifyUploader(flushCompletions: [])
        var commands: [TrackerCommand] = []
        while true {
            let (open, dropped) = inbox.take(into: &commands)
            guard open else { break }
            // A backlog is written in transactions of at most `turnSize` commands: memory for
            // encoded events stays small and each commit comes sooner.
            var start = 0
            while start < commands.count {
                let end = min(commands.count, start + Self.turnSize)
                process(commands[start..<end], droppedForCapacity: start == 0 ? dropped : 0)
                start = end
            }
        }
    }

    // MARK: Opening

    /// Opens the queue and restores the stored state; with consent required and none given on
    /// this device yet (no queue file), writes nothing and records nothing until the opt-in.
    private func openQueue() {
        let path = configuration.resolvedStorageDirectory + "/queue.sqlite"
        if configuration.requiresConsent && !FileManager.default.fileExists(atPath: path) {
            awaitingConsent = true
            assembler.optedOut = true
            inbox.restoreOptedOut(true)
            return
        }
        if createQueue() { restoreState() }
    }

    /// The first opt-in with consent required: creates the queue and stores the state as it is.
    private func openQueueAtConsent() {
        awaitingConsent = false
        guard createQueue(), let queue else { return }
        do {
            try queue.write { try saveState(in: queue, previous: nil) }
        } catch {
            configuration.log("the tracker's state could not be written: \(error)")
        }
    }

    /// Creates the folder and opens (or creates) the queue database.
    /// - Returns: whether it is open.
    private func createQueue() -> Bool {
        let directory = configuration.resolvedStorageDirectory
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            queue = try EventQueue(
                path: directory + "/queue.sqlite",
                limits: .init(
                    maximumEvents: max(1, configuration.maximumQueuedEvents),
                    maximumBytes: max(1, configuration.maximumQueuedBytes),
                    maximumDeadLetters: max(1, configuration.maximumDeadLetters)),
                replaced: reportReplaced)
        } catch {
            configuration.log(
                "the event queue cannot be opened in \(directory): \(error); events are not kept")
            queue = nil
            return false
        }
        return true
    }

    private func reportReplaced(movedTo: String, reason: String) {
        configuration.log("the event queue was unreadable (\(reason)); moved aside to \(movedTo)")
        configuration.observer?(.databaseReplaced(movedTo: movedTo, reason: reason))
    }

    private func restoreState() {
        guard let queue else { return }
        do {
            if let anonymousId = try queue.state("anonymous_id") {
                assembler.anonymousId = anonymousId
            }
            assembler.userId = try queue.state("user_id")
            assembler.optedOut = try queue.state("opted_out") == "1"
            assembler.planHealthSent = try queue.state("plan_health_sent")
            if let text = try queue.state("super_properties"),
                case .object(let properties) = try JSONParser().parse(text)
            {
                assembler.superProperties = properties
            }
            if let release = try queue.state("app_release").flatMap(AppRelease.init(stored:)) {
                assembler.lifecycle = AppLifecycleState(
                    switches: configuration.lifecycleEvents, current: assembler.lifecycle.current,
                    remembered: release)
            }
            if let sessionId = try queue.state("session_id"),
                let last = try queue.state("session_last_activity").flatMap(Int64.init)
            {
                assembler.session = SessionState(
                    timeoutMilliseconds: assembler.session.timeoutMilliseconds, resuming: sessionId,
                    lastActivity: Timestamp(millisecondsSince1970: last))
            }
            inbox.restoreOptedOut(assembler.optedOut)
            try queue.write { try saveState(in: queue, previous: nil) }
        } catch {
            configuration.log("the tracker's stored state could not be read: \(error)")
        }
    }

    // MARK: One turn

    private func process(_ commands: ArraySlice<TrackerCommand>, droppedForCapacity: Int) {
        let before = assembler
        var encoded: [(messageId: String, body: [UInt8])] = []
        var requests: [StorageRequest] = []
        var barriers: [@Sendable () -> Void] = []
        var flushCompletions: [(@Sendable () -> Void)?] = []
        var clearQueue = false
        encoded.reserveCapacity(commands.count)
        for command in commands {
            switch command {
            case .storage(let request): requests.append(request)
            case .barrier(let body): barriers.append(body)
            case .readIdentity(let reply): reply(assembler.identity)
            case .flush(let completion): flushCompletions.append(completion)
            case .setOptedOut(true):
                encoded.removeAll()
                clearQueue = true
            case .setOptedOut(false) where awaitingConsent:
                openQueueAtConsent()
            default: break
            }
            if assembler.optedOut && command.isEvent { continue }
            apply(command, into: &encoded)
        }
        if droppedForCapacity > 0 {
            configuration.log(
                "\(droppedForCapacity) events dropped: more than \(configuration.maximumPendingEvents) waiting"
            )
            configuration.observer?(.evicted(count: droppedForCapacity))
        }
        commit(encoded, clearQueue: clearQueue, dropped: Int64(droppedForCapacity), before: before)
        for request in requests { serve(request) }
        for barrier in barriers { barrier() }
        if !encoded.isEmpty || !flushCompletions.isEmpty {
            notifyUploader(flushCompletions: flushCompletions)
        }
    }

    /// Applies `command` to the assembler and validates and encodes the messages it builds
    /// (none while opted out), telling the session observers when a session starts.
    private func apply(_ command: TrackerCommand, into encoded: inout [(messageId: String, body: [UInt8])]) {
        let session = assembler.session.id
        defer {
            if let started = assembler.session.id, started != session { sessionStarts.notify(started) }
        }
        switch assembler.apply(command, random: &random) {
        case .none: break
        case .warning(let text): configuration.log(text)
        case .lifecycleEvents(let events, let time):
            for event in events {
                apply(
                    .event(.track(event: event.name), properties: event.properties, at: time), into: &encoded)
            }
        case .message(let message, let encodedContext):
            guard !assembler.optedOut else { return }
            do {
                let bytes = try message.validatedBytes(encodedContext: encodedContext)
                configuration.observer?(.captured(message))
                encoded.append((message.messageId, bytes))
            } catch {
                configuration.log("event refused: \(error)")
                configuration.observer?(.refused(error))
            }
        }
    }

    private func commit(
        _ encoded: [(messageId: String, body: [UInt8])], clearQueue: Bool, dropped: Int64,
        before: EventAssembler
    ) {
        guard queue != nil else {
            lostWithoutQueue += Int64(encoded.count) + dropped
            return
        }
        let lostEarlier = lostWithoutQueue
        do {
            try withRecovery { queue in
                try queue.write {
                    if clearQueue { try queue.removeAllEvents() }
                    try queue.append(encoded)
                    try queue.addUnreportedEvictions(dropped + lostEarlier)
                    let evicted = try queue.evictOverflow()
                    if evicted > 0 { configuration.observer?(.evicted(count: evicted)) }
                    try saveState(in: queue, previous: before)
                }
            }
            lostWithoutQueue -= lostEarlier
        } catch {
            lostWithoutQueue += Int64(encoded.count) + dropped
            configuration.log("\(encoded.count) events could not be written: \(error)")
        }
    }

    /// Persists what changed in the assembler since `previous` (everything when `nil`).
    private func saveState(in queue: EventQueue, previous: EventAssembler?) throws {
        let now = assembler
        if previous?.anonymousId != now.anonymousId { try queue.setState("anonymous_id", now.anonymousId) }
        if previous?.userId != now.userId { try queue.setState("user_id", now.userId) }
        if previous?.optedOut != now.optedOut { try queue.setState("opted_out", now.optedOut ? "1" : "0") }
        if previous?.superProperties != now.superProperties {
            try queue.setState("super_properties", JSONValue.object(now.superProperties).description)
        }
        if previous?.planHealthSent != now.planHealthSent {
            try queue.setState("plan_health_sent", now.planHealthSent)
        }
        if previous?.lifecycle.remembered != now.lifecycle.remembered {
            try queue.setState("app_release", now.lifecycle.remembered?.stored)
        }
        if previous?.session != now.session {
            try queue.setState("session_id", now.session.id)
            try queue.setState(
                "session_last_activity", now.session.lastActivity.map { String($0.millisecondsSince1970) })
        }
    }

    /// Runs `body`; on a damaged database, moves it aside, opens a fresh one and runs it again.
    private func withRecovery<T>(_ body: (EventQueue) throws -> T) throws -> T {
        guard let queue else { throw SQLiteError(code: 14, message: "no event queue") }
        do {
            return try body(queue)
        } catch let error as SQLiteError where error.isCorruption {
            try queue.replaceDamaged(reason: error.description, replaced: reportReplaced)
            try queue.write { try saveState(in: queue, previous: nil) }
            return try body(queue)
        }
    }

    // MARK: The uploader's requests

    private func serve(_ request: StorageRequest) {
        switch request {
        case .readBatch(let selection, let maximumBytes, let reply):
            let batch =
                (try? withRecovery { try $0.read(selection, maximumBytes: maximumBytes) }) ?? StoredBatch()
            reply(batch)
        case .apply(let effects, let acknowledged, let reply):
            do {
                let deadLettered = try withRecovery { queue in
                    try queue.write {
                        try queue.addUnreportedEvictions(-acknowledged)
                        return try queue.apply(effects, now: configuration.clock.now())
                    }
                }
                for (messageId, reason) in deadLettered {
                    configuration.log(
                        "event \(messageId) refused by the server and kept as a dead letter: \(reason)")
                    configuration.observer?(.deadLettered(messageId: messageId, reason: reason))
                }
            } catch {
                configuration.log("delivery results could not be written: \(error)")
            }
            reply()
        }
    }

    private func notifyUploader(flushCompletions: [(@Sendable () -> Void)?]) {
        let count = queue?.count ?? 0
        let uploader = uploader
        let completions = flushCompletions
        Task { await uploader.queueChanged(count: count, flushCompletions: completions) }
    }
}
