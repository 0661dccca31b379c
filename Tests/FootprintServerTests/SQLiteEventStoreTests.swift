import Dispatch
import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

/// A class so that each test's folder is removed when the test ends (`deinit`).
final class SQLiteEventStoreTests {
    let directory: String
    let store: SQLiteEventStore
    let project: Project
    let day = Timestamp(iso8601: "2026-11-29T08:00:00.000Z")!

    init() throws {
        directory =
            NSTemporaryDirectory() + "footprint-store-\(UUIDv7.make(at: Timestamp(millisecondsSince1970: 0)))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var configuration = SQLiteEventStore.Configuration()
        configuration.synchronous = "NORMAL"
        store = try SQLiteEventStore(path: directory + "/store.sqlite", configuration: configuration)
        project = try store.createProject(named: "shop")
    }

    deinit {
        store.close()
        try? FileManager.default.removeItem(atPath: directory)
    }

    func event(
        _ id: String, _ type: MessageType, name: String, visitor: String, at offset: Int64 = 0,
        properties: JSONObject = [:]
    ) -> EventRecord {
        let message = Message(
            type: type, messageId: id, anonymousId: visitor, event: type == .track ? name : nil,
            name: type == .track ? nil : name, timestamp: day.adding(milliseconds: offset),
            properties: properties)
        return EventRecord(message: message, time: message.timestamp, receivedAt: day)
    }

    func batch(_ events: [EventRecord]) -> IngestBatch {
        IngestBatch(projectId: project.id, events: events, receivedAt: day)
    }

    @Test func aResentBatchStoresNothingTwice() throws {
        let events = (0..<10).map { event("m\($0)", .track, name: "Tap", visitor: "a") }
        #expect(try store.write(batch(events)) == WriteOutcome(stored: 10, duplicates: 0))
        #expect(try store.write(batch(events)) == WriteOutcome(stored: 0, duplicates: 10))
        #expect(
            try store.write(
                batch(Array(events.prefix(3)) + [event("m10", .track, name: "Tap", visitor: "a")]))
                == WriteOutcome(stored: 1, duplicates: 3))
        #expect(try store.eventCount(projectId: project.id) == 11)
        store.close()
    }

    @Test func sameMessageIdInAnotherProjectIsStored() throws {
        let other = try store.createProject(named: "other")
        _ = try store.write(batch([event("m", .track, name: "Tap", visitor: "a")]))
        _ = try store.write(
            IngestBatch(
                projectId: other.id, events: [event("m", .track, name: "Tap", visitor: "a")], receivedAt: day)
        )
        #expect(try store.eventCount(projectId: other.id) == 1)
        #expect(try store.eventCount(projectId: project.id) == 1)
        store.close()
    }

    @Test func concurrentWritersAreAllCommittedExactlyOnce() throws {
        let store = self.store
        let project = self.project
        let day = self.day
        DispatchQueue.concurrentPerform(iterations: 16) { worker in
            let events = (0..<50).map { index in
                EventRecord(
                    message: Message(
                        type: .track, messageId: "w\(worker)-\(index % 40)", anonymousId: "a", event: "E",
                        timestamp: day),
                    time: day, receivedAt: day)
            }
            _ = try? store.write(IngestBatch(projectId: project.id, events: events, receivedAt: day))
        }
        #expect(try store.eventCount(projectId: project.id) == 16 * 40)
        store.close()
    }

    @Test func evictedCountOfAResentBatchIsCountedOnce() throws {
        let resent = IngestBatch(
            projectId: project.id, events: [], evictedCount: 5, batchKey: "same", receivedAt: day)
        _ = try store.write(resent)
        _ = try store.write(resent)
        #expect(try store.lostEventCount(projectId: project.id) == 5)
        store.close()
    }

    @Test func theTimeSpanRunsFromTheOldestToTheNewestEvent() throws {
        #expect(try store.eventTimeSpan(projectId: project.id) == nil)
        _ = try store.write(
            batch([
                event("2", .track, name: "Tap", visitor: "a", at: 5_000),
                event("1", .track, name: "Tap", visitor: "a", at: -86_400_000),
                event("3", .track, name: "Tap", visitor: "a", at: 1_000),
            ]))
        let other = try store.createProject(named: "other")
        #expect(try store.eventTimeSpan(projectId: other.id) == nil)
        #expect(
            try store.eventTimeSpan(projectId: project.id)
                == day.adding(milliseconds: -86_400_000)...day.adding(milliseconds: 5_000))
        store.close()
    }

    @Test func projectsHaveUniqueNamesAndKeys() throws {
        #expect(throws: ServerError.self) { try store.createProject(named: "shop") }
        #expect(throws: ServerError.self) { try store.createProject(named: "  ") }
        let second = try store.createProject(named: "second")
        #expect(second.writeKey != project.writeKey)
        #expect(try store.projects().map(\.name) == ["shop", "second"])
        #expect(try store.project(writeKey: second.writeKey)?.name == "second")
        #expect(try store.project(writeKey: "fp_nope") == nil)
        store.close()
    }

    @Test func eachPublicationIsANewRevision() throws {
        #expect(try store.latestConfig(projectId: project.id) == nil)
        let first = try store.storeConfig(projectId: project.id, document: #"{"version":1}"#, at: day)
        #expect(first.version == 1)
        let second = try store.storeConfig(
            projectId: project.id, document: #"{"version":1,"pageMode":"all"}"#, at: day)
        #expect(second.version == 2)
        #expect(try store.latestConfig(projectId: project.id) == second)
        #expect(first.etag != second.etag)
        // Rolling back publishes the earlier document again, as a newer revision.
        let rolledBack = try store.storeConfig(projectId: project.id, document: first.document, at: day)
        #expect(rolledBack.version == 3)
        #expect(rolledBack.etag != first.etag)
        store.close()
    }

    @Test func dataSurvivesReopening() throws {
        _ = try store.write(batch([event("m", .screen, name: "Home", visitor: "a")]))
        store.close()
        #expect(throws: ServerError.self) { try store.write(batch([])) }
        let report = try Report.load(databasePath: directory + "/store.sqlite")
        #expect(report.project == "shop")
        #expect(report.totalEvents == 1)
    }

    @Test func aReadOnlyStoreReadsBesideTheWriterAndRefusesWrites() throws {
        _ = try store.write(batch([event("m", .screen, name: "Home", visitor: "a")]))
        var configuration = SQLiteEventStore.Configuration()
        configuration.readOnly = true
        let reader = try SQLiteEventStore(path: directory + "/store.sqlite", configuration: configuration)
        #expect(try reader.eventCount(projectId: project.id) == 1)
        #expect(throws: ServerError.self) { try reader.write(batch([])) }
        #expect(throws: ServerError.self) { try reader.createProject(named: "x") }
        // The writer keeps committing while the reader is open, and the reader sees it.
        _ = try store.write(batch([event("n", .screen, name: "Home", visitor: "b")]))
        #expect(try reader.eventCount(projectId: project.id) == 2)
        reader.close()
        store.close()
    }
}
