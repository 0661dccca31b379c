import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

/// `Stores.open`, the one place that opens a deployment's metadata and events.
@Suite struct StoresTests {
    /// What opening these stores throws, `nil` when they open (and are closed again).
    static func refusal(opening metadata: StoreLocation, events: StoreLocation? = nil) -> ServerError? {
        do {
            try Stores.open(metadata: metadata, events: events).close()
            return nil
        } catch {
            return error
        }
    }

    @Test func aSQLiteFileIsBothStoresInOneObjectAndClosesOnce() throws {
        try withTemporaryDatabase("footprint-stores") { path in
            let stores = try Stores.open(metadata: .sqlite(path: path))
            let file = try #require(stores.events as? SQLiteEventStore)
            #expect(stores.metadata as? SQLiteEventStore === file)
            let project = try stores.metadata.createProject(named: "shop")
            let time = Timestamp(millisecondsSince1970: 1_790_000_000_000)
            let event = EventRecord(
                messageId: "m1", type: .track, name: "Opened", time: time, clientTimestamp: time, sentAt: nil,
                receivedAt: time, anonymousId: "d1", userId: nil, sessionId: "s1", page: "Home",
                elementPath: nil,
                appVersion: "1.0", os: "iOS 17.2", payload: #"{"type":"track"}"#)
            let batch = IngestBatch(projectId: project.id, events: [event], receivedAt: time)
            #expect(try stores.events.write(batch).stored == 1)
            stores.close()
            // Closed: later calls fail, and the file holds what was written.
            var afterClose: ServerError?
            do {
                _ = try stores.events.write(batch)
            } catch {
                afterClose = error as? ServerError
            }
            #expect(afterClose?.code == .closed)
            let reopened = try Stores.open(metadata: .sqlite(path: path), events: .sqlite(path: path))
            defer { reopened.close() }
            #expect(try reopened.events.eventCount(projectId: project.id) == 1)
            #expect(try reopened.metadata.projects().map(\.name) == ["shop"])
        }
    }

    @Test func postgresMetadataWithoutClickHouseEventsIsRefused() throws {
        // Refused before connecting: nothing listens at this address.
        let postgres = try StoreLocation("postgres://fp:secret@127.0.0.1:9/meta")
        for events in [nil, StoreLocation.sqlite(path: "/nonexistent/footprint.sqlite"), postgres] {
            let refused = Self.refusal(opening: postgres, events: events)
            #expect(refused?.code == .invalidStore)
            #expect(refused?.message.contains("clickhouse://") == true)
            #expect(refused?.message.contains("secret") == false)
        }
        withTemporaryDatabase("footprint-stores-pg") { path in
            #expect(Self.refusal(opening: .sqlite(path: path), events: postgres)?.code == .invalidStore)
        }
        // With ClickHouse named, PostgreSQL is connected to: nothing listens, so unavailable.
        let clickHouse = try StoreLocation("clickhouse://127.0.0.1:9/footprint")
        #expect(Self.refusal(opening: postgres, events: clickHouse)?.code == .unavailable)
    }

    @Test func metadataOutsideAFileAndTwoDifferentFilesAreRefused() throws {
        let clickHouse = try StoreLocation("clickhouse://127.0.0.1:9/footprint")
        #expect(Self.refusal(opening: clickHouse)?.code == .invalidStore)
        withTemporaryDatabase("footprint-stores-a") { first in
            withTemporaryDatabase("footprint-stores-b") { second in
                let refused = Self.refusal(opening: .sqlite(path: first), events: .sqlite(path: second))
                #expect(refused?.code == .invalidStore)
                #expect(refused?.message.contains("differ") == true)
                // Nothing was created by the refusal.
                #expect(!FileManager.default.fileExists(atPath: first))
            }
        }
    }

    @Test func theMetadataFileOfAClickHouseStoreIsRefusedAsAStoreOfItsOwnEvents() throws {
        try withTemporaryDatabase("footprint-stores-role") { path in
            let location = try ClickHouseLocation(url: "clickhouse://127.0.0.1:9/footprint")
            let file = try SQLiteEventStore(path: path)
            try file.recordEventStore(location, at: Timestamp(millisecondsSince1970: 1_790_000_000_000))
            file.close()
            let refused = Self.refusal(opening: .sqlite(path: path))
            #expect(refused?.code == .storeInUse)
            #expect(refused?.message.contains("--store '\(location)'") == true)
        }
    }
}
