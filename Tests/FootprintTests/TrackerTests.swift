import FootprintSQLite
import FootprintSimulation
import Foundation
import Testing

@testable import Footprint

struct TrackerTests {
    let directory = ScratchFolder()
    let clock = SimulatedClock(start: Timestamp(millisecondsSince1970: 1_795_981_800_000))
    let captured = LockedBox<[Message]>([])
    let activity = LockedBox<[TrackerActivity]>([])

    func configuration() -> Tracker.Configuration {
        var configuration = Tracker.Configuration(writeKey: "key", serverURL: "http://127.0.0.1:1")
        configuration.storageDirectory = directory.path
        configuration.remoteConfigRefreshSeconds = nil
        configuration.flushAt = 1_000_000
        configuration.flushIntervalSeconds = 3600
        configuration.clock = clock
        configuration.log = { _ in }
        var context = DeviceContext()
        context.appName = "Shop"
        context.appVersion = "2.1"
        context.appBuild = "210"
        context.appNamespace = "com.example.shop"
        context.osName = "iOS"
        context.osVersion = "18.1"
        context.deviceModel = "iPhone15,2"
        context.deviceManufacturer = "Apple"
        context.deviceType = "ios"
        context.locale = "en-US"
        context.timezone = "Europe/Paris"
        configuration.context = context
        let captured = captured
        let activity = activity
        configuration.observer = { event in
            activity.withLock { $0.append(event) }
            if case .captured(let message) = event { captured.withLock { $0.append(message) } }
        }
        return configuration
    }

    func storedMessages() throws -> [JSONValue] {
        let database = try SQLiteDatabase(path: directory.path + "/queue.sqlite")
        return try database.prepare("SELECT body FROM events ORDER BY id").rows {
            try JSONParser().parse($0.blob(at: 0))
        }
    }

    @Test func trackBuildsASegmentMessageWithContextSessionAndIdentity() throws {
        let tracker = Tracker(configuration: configuration())
        tracker.track("Order Completed", properties: ["total": 42.5, "items": 3])
        #expect(tracker.waitUntilStored())
        let message = try #require(captured.current.first)
        #expect(message.type == .track)
        #expect(message.event == "Order Completed")
        #expect(message.properties == ["total": 42.5, "items": 3])
        #expect(message.timestamp == clock.now())
        #expect(UUIDv7.timestamp(of: message.messageId) == clock.now())
        #expect(message.anonymousId != nil && message.userId == nil)
        #expect(
            message.context["library"] == [
                "name": "footprint-swift", "version": .string(DeviceContext.libraryVersion),
            ])
        #expect(
            message.context["app"] == [
                "name": "Shop", "version": "2.1", "build": "210", "namespace": "com.example.shop",
            ])
        #expect(message.context["os"] == ["name": "iOS", "version": "18.1"])
        #expect(message.context["device"] == ["model": "iPhone15,2", "manufacturer": "Apple", "type": "ios"])
        #expect(message.context["locale"] == "en-US")
        #expect(message.context["timezone"] == "Europe/Paris")
        let sessionId = try #require(message.context["sessionId"]?.stringValue)
        #expect(UUIDv7.timestamp(of: sessionId) != nil)
        // What is on disk is the same message, byte for byte.
        #expect(try storedMessages() == [message.json])
    }

    @Test func capturedEventsBecomeTheSameMessagesAsPublicCalls() throws {
        let tracker = Tracker(configuration: configuration())
        tracker.registerSuperProperties(["plan": "pro"])
        tracker.record(
            CapturedEvent(kind: .screen(name: "Cart"), properties: ["$screen_class": "CartViewController"]))
        tracker.screen("Cart", properties: ["$screen_class": "CartViewController"])
        tracker.record(
            CapturedEvent(kind: .track(event: "$element_click"), properties: ["$element_path": "a/b"]))
        tracker.track("$element_click", properties: ["$element_path": "a/b"])
        #expect(tracker.waitUntilStored())
        let messages = captured.current
        #expect(messages.count == 4)
        func comparable(_ message: Message) -> Message {
            var copy = message
            copy.messageId = ""
            return copy
        }
        #expect(comparable(messages[0]) == comparable(messages[1]))
        #expect(comparable(messages[2]) == comparable(messages[3]))
        #expect(messages[0].name == "Cart" && messages[0].type == .screen)
        #expect(messages[0].properties["plan"] == "pro")
        #expect(Set(messages.map(\.messageId)).count == 4)
    }

    @Test func identifyAliasGroupAndReset() throws {
        let tracker = Tracker(configuration: configuration())
        tracker.identify(userId: "u-1", traits: ["email": "a@example.com"])
        tracker.track("After Identify")
        tracker.alias(userId: "u-2")
        tracker.group("g-1", traits: ["name": "Acme"])
        tracker.registerSuperProperties(["plan": "pro"])
        tracker.reset()
        tracker.track("After Reset")
        #expect(tracker.waitUntilStored())
        let messages = captured.current
        #expect(messages.map(\.type) == [.identify, .track, .alias, .group, .track])
        #expect(messages[0].userId == "u-1" && messages[0].traits == ["email": "a@example.com"])
        #expect(messages[1].userId == "u-1")
        #expect(messages[2].previousId == "u-1" && messages[2].userId == "u-2")
        #expect(messages[3].groupId == "g-1" && messages[3].userId == "u-2")
        #expect(messages[4].userId == nil)
        #expect(messages[4].anonymousId != messages[0].anonymousId)
        #expect(messages[4].properties["plan"] == nil)
        #expect(messages[4].context["sessionId"] != messages[0].context["sessionId"])
    }

    @Test func identityAndSuperPropertiesSurviveARestart() throws {
        var first: Message?
        do {
            let tracker = Tracker(configuration: configuration())
            tracker.identify(userId: "u-9")
            tracker.registerSuperProperties(["ab": "B"])
            tracker.track("One")
            #expect(tracker.waitUntilStored())
            first = captured.current.last
        }
        clock.advance(milliseconds: 60_000)
        let tracker = Tracker(configuration: configuration())
        tracker.track("Two")
        #expect(tracker.waitUntilStored())
        let second = try #require(captured.current.last)
        #expect(second.anonymousId == first?.anonymousId)
        #expect(second.userId == "u-9")
        #expect(second.properties["ab"] == "B")
        #expect(second.context["sessionId"] == first?.context["sessionId"])
        let identity = try #require(tracker.identity())
        #expect(identity.anonymousId == first?.anonymousId)
        #expect(identity.userId == "u-9")
        #expect(identity.sessionId == first?.context["sessionId"]?.stringValue)
        #expect(!identity.isOptedOut)
        tracker.reset()
        #expect(tracker.identity()?.anonymousId != first?.anonymousId)
        #expect(tracker.identity()?.userId == nil)
        #expect(try storedMessages().count == 3)
    }

    @Test func sessionsFollowTheClock() throws {
        let tracker = Tracker(configuration: configuration())
        tracker.track("a")
        clock.advance(milliseconds: 10 * 60_000)
        tracker.track("b")
        clock.advance(milliseconds: 31 * 60_000)
        tracker.track("c")
        tracker.applicationDidEnterBackground()
        clock.advance(milliseconds: 31 * 60_000)
        tracker.applicationWillEnterForeground()
        tracker.track("d")
        #expect(tracker.waitUntilStored())
        let sessions = captured.current.map { $0.context["sessionId"]!.stringValue! }
        #expect(sessions[0] == sessions[1])
        #expect(sessions[1] != sessions[2])
        #expect(sessions[2] != sessions[3])
    }

    @Test func sessionStartsAreReportedOncePerNewSession() throws {
        let started = LockedBox<[String]>([])
        let tracker = Tracker(configuration: configuration())
        tracker.observeSessionStarts { id in started.withLock { $0.append(id) } }
        tracker.track("a")
        clock.advance(milliseconds: 10 * 60_000)
        tracker.screen("b")
        clock.advance(milliseconds: 31 * 60_000)
        tracker.track("c")
        tracker.reset()
        tracker.track("d")
        tracker.track("e")
        #expect(tracker.waitUntilStored())
        let sessions = captured.current.map { $0.context["sessionId"]!.stringValue! }
        #expect(started.current == [sessions[0], sessions[2], sessions[3]])
        #expect(Set(started.current).count == 3)
        // A restart resumes the stored session: no new start.
        let resumed = Tracker(configuration: configuration())
        let again = LockedBox<[String]>([])
        resumed.observeSessionStarts { id in again.withLock { $0.append(id) } }
        resumed.track("f")
        #expect(resumed.waitUntilStored())
        #expect(again.current.isEmpty)
    }

    @Test func timedEventsAddTheirDuration() throws {
        let tracker = Tracker(configuration: configuration())
        tracker.startTimedEvent("Checkout")
        clock.advance(milliseconds: 1234)
        tracker.endTimedEvent("Checkout", properties: ["step": 3])
        tracker.endTimedEvent("Never Started")
        #expect(tracker.waitUntilStored())
        let messages = captured.current
        #expect(messages.count == 1)
        #expect(messages[0].event == "Checkout")
        #expect(messages[0].properties == ["step": 3, "duration_ms": 1234])
    }

    @Test func superPropertiesCanBeRemovedAndEventPropertiesWin() throws {
        let tracker = Tracker(configuration: configuration())
        tracker.registerSuperProperties(["a": 1, "b": 2])
        tracker.track("x", properties: ["b": 3])
        tracker.unregisterSuperProperties(["a"])
        tracker.track("y")
        #expect(tracker.waitUntilStored())
        #expect(captured.current.map(\.properties) == [["a": 1, "b": 3], ["b": 2]])
    }

    @Test(arguments: [
        ("nan", JSONValue.double(.nan), "invalid_number"),
        ("long", JSONValue.string(String(repeating: "x", count: 8 * 1024 + 1)), "string_too_long"),
        (
            "big", JSONValue.array(Array(repeating: .string(String(repeating: "y", count: 8000)), count: 5)),
            "event_too_large"
        ),
    ])
    func invalidEventsAreRefusedWithAReasonAndOthersStillGoThrough(
        name: String, value: JSONValue, code: String
    ) throws {
        let tracker = Tracker(configuration: configuration())
        tracker.track("bad", properties: [name: value])
        tracker.track("good")
        #expect(tracker.waitUntilStored())
        let refusals = activity.current.compactMap { event -> MessageError? in
            if case .refused(let error) = event { return error }
            return nil
        }
        #expect(refusals.map(\.code.name) == [code])
        #expect(try storedMessages().map { $0["event"] } == ["good"])
    }

    @Test func optOutClearsTheQueueDropsNewEventsAndPersists() throws {
        do {
            let tracker = Tracker(configuration: configuration())
            tracker.track("before")
            #expect(tracker.waitUntilStored())
            tracker.optOut()
            tracker.track("while opted out")
            #expect(tracker.waitUntilStored())
            #expect(try storedMessages().isEmpty)
        }
        let tracker = Tracker(configuration: configuration())
        tracker.track("after restart, still opted out")
        #expect(tracker.waitUntilStored())
        #expect(try storedMessages().isEmpty)
        tracker.optIn()
        tracker.track("after opt-in")
        #expect(tracker.waitUntilStored())
        #expect(try storedMessages().map { $0["event"] } == ["after opt-in"])
    }

    @Test func callsFromManyThreadsAreAllStoredOnceAndInOrderPerThread() throws {
        let tracker = Tracker(configuration: configuration())
        let threads = 4
        let perThread = 2000
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for index in 0..<perThread {
                tracker.track("t\(thread)", properties: ["i": .int(Int64(index))])
            }
        }
        #expect(tracker.waitUntilStored())
        let stored = try storedMessages()
        #expect(stored.count == threads * perThread)
        for thread in 0..<threads {
            let sequence = stored.filter { $0["event"] == .string("t\(thread)") }.compactMap {
                $0["properties"]?["i"]?.int64Value
            }
            #expect(sequence == Array(0..<Int64(perThread)))
        }
        #expect(Set(stored.compactMap { $0["messageId"] }).count == stored.count)
    }

    @Test func anUnusableStorageFolderDropsEventsWithoutCrashing() async throws {
        var configuration = configuration()
        let file = directory.path + "/not-a-folder"
        _ = FileManager.default.createFile(atPath: file, contents: Data("x".utf8))
        configuration.storageDirectory = file
        let logged = LockedBox<[String]>([])
        configuration.log = { message in logged.withLock { $0.append(message) } }
        let tracker = Tracker(configuration: configuration)
        tracker.track("nowhere to go")
        #expect(tracker.waitUntilStored())
        #expect(logged.current.contains { $0.contains("cannot be opened") })
        // Delivery answers too: the flush completes (with nothing to send).
        await tracker.flushAndWait()
    }

    @Test func aCorruptQueueFileIsMovedAsideAndTheTrackerKeepsWorking() throws {
        let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        _ = FileManager.default.createFile(atPath: directory.path + "/queue.sqlite", contents: garbage)
        let tracker = Tracker(configuration: configuration())
        tracker.track("after replacement")
        #expect(tracker.waitUntilStored())
        let movedTo = activity.current.compactMap { event -> String? in
            if case .databaseReplaced(let movedTo, _) = event { return movedTo }
            return nil
        }
        #expect(movedTo.count == 1)
        #expect(FileManager.default.contents(atPath: movedTo[0]) == garbage)
        #expect(try storedMessages().map { $0["event"] } == ["after replacement"])
    }

    @Test func aBurstBeyondThePendingLimitIsCountedAsEvicted() throws {
        var configuration = configuration()
        configuration.maximumPendingEvents = 10
        let tracker = Tracker(configuration: configuration)
        #expect(tracker.waitUntilStored())
        // Hold the storage thread so the burst piles up in memory.
        // Wait until it runs the barrier: commands it already took would not count as pending.
        let entered = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        tracker.inbox.submit(
            .barrier {
                entered.signal()
                gate.wait()
            })
        entered.wait()
        for index in 0..<50 { tracker.track("burst", properties: ["i": .int(Int64(index))]) }
        gate.signal()
        #expect(tracker.waitUntilStored())
        #expect(try storedMessages().count == 10)
        let database = try SQLiteDatabase(path: directory.path + "/queue.sqlite")
        let state = try database.prepare("SELECT value FROM state WHERE key = 'unreported_evictions'")
        #expect(try state.step())
        #expect(state.text(at: 0) == "40")
    }
}
