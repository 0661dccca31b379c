import FootprintSQLite
import FootprintServer
import FootprintWire
import Foundation
import Testing

/// `footprint backup` of a database a real server is ingesting into over loopback, then the
/// documented restore: the copy is one consistent moment, and resending fills the gap.
struct BackupTests {
    static let eventsPerBatch = 20

    static func batch(_ index: Int) -> String {
        Payloads.batch((0..<eventsPerBatch).map { Payloads.track("batch\(index)-event\($0)") })
    }

    @Test func aBackupWhileTheServerIngestsIsOneMomentAndRestores() throws {
        let cli = try CommandLineTests()
        let fixture = try TestServer()
        defer {
            fixture.shutDown()
            try? FileManager.default.removeItem(atPath: cli.directory)
        }
        let copy = cli.directory + "/copy.sqlite"
        let backedUp = SharedValue(false)
        let sent = SharedValue(0)
        let firstAnswered = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let failures = SharedValue<[String]>([])
        // Sends batches one after another until the backup is done, then three more.
        Thread.detachNewThread { [client = fixture.client, writeKey = fixture.writeKey] in
            var after = 0
            while after < 3 {
                if backedUp.withLock({ $0 }) { after += 1 }
                let index = sent.withLock { $0 }
                do {
                    let response = try client.post("/v1/batch", json: Self.batch(index), writeKey: writeKey)
                    guard response.status == 200 else {
                        throw LoopbackClient.Failure(description: response.text)
                    }
                } catch {
                    failures.withLock { $0.append("batch \(index): \(error)") }
                    break
                }
                sent.withLock { $0 += 1 }
                if index == 0 { firstAnswered.signal() }
            }
            firstAnswered.signal()
            finished.signal()
        }
        #expect(firstAnswered.wait(timeout: .now() + 60) == .success)
        let backup = try cli.run([
            "backup", "--db", fixture.directory + "/events.sqlite", "--to", copy, "--json",
        ])
        backedUp.withLock { $0 = true }
        #expect(finished.wait(timeout: .now() + 120) == .success, "the sender did not finish")
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        #expect(backup.status == 0, "\(backup.error)")
        let summary = try JSONParser().parse(backup.output)
        #expect(!FileManager.default.fileExists(atPath: copy + ".partial"))

        let batches = sent.withLock { $0 }
        let stored = try fixture.storedCount()
        #expect(stored == batches * Self.eventsPerBatch)
        let copied: Int
        do {
            let database = try SQLiteDatabase(path: copy)
            #expect(try database.prepare("PRAGMA integrity_check").rows([]) { $0.text(at: 0) } == ["ok"])
            copied = Int(try database.prepare("SELECT count(*) FROM events").rows([]) { $0.int64(at: 0) }[0])
            #expect(summary["events"]?.int64Value == Int64(copied))
            // One moment: the rollups count exactly the events the copy holds, and each batch
            // (one transaction) is in the copy whole or not at all.
            let counted = try database.prepare("SELECT sum(stored) FROM project_events").rows([]) {
                $0.int64(at: 0)
            }
            #expect(counted == [Int64(copied)])
            let perBatch = try database.prepare(
                "SELECT count(*) FROM events GROUP BY substr(message_id, 1, instr(message_id, '-'))"
            ).rows([]) { Int($0.int64(at: 0)) }
            #expect(perBatch.allSatisfy { $0 == Self.eventsPerBatch }, "\(perBatch)")
        }
        // Taken after the first batch was answered and before the last three were sent.
        #expect(copied >= Self.eventsPerBatch)
        #expect(copied <= stored - 3 * Self.eventsPerBatch)

        // Restore (docs/OPERATIONS.md): the copy becomes the database of a server; clients'
        // resends store what came after the copy, and nothing twice.
        let restoredDirectory = cli.directory + "/restored"
        try FileManager.default.createDirectory(atPath: restoredDirectory, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: copy, toPath: restoredDirectory + "/events.sqlite")
        var configuration = AnalyticsServer.Configuration(databasePath: restoredDirectory + "/events.sqlite")
        configuration.store.synchronous = "NORMAL"
        let restored = try AnalyticsServer(configuration: configuration)
        defer { restored.stop() }
        #expect(restored.defaultProject?.writeKey == fixture.writeKey)
        var duplicates: Int64 = 0
        for index in 0..<batches {
            let response = try LoopbackClient(port: restored.port).post(
                "/v1/batch", json: Self.batch(index), writeKey: fixture.writeKey)
            #expect(response.status == 200)
            duplicates += try JSONParser().parse(response.body)["duplicates"]?.int64Value ?? -1
        }
        #expect(duplicates == Int64(copied))
        #expect(try restored.stores.events.eventCount(projectId: restored.defaultProject!.id) == stored)
    }

    @Test func aBackupNeverOverwritesAFileAndNeedsADatabase() throws {
        let cli = try CommandLineTests()
        defer { try? FileManager.default.removeItem(atPath: cli.directory) }
        let existing = cli.directory + "/existing.sqlite"
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: existing))
        let missing = try cli.run([
            "backup", "--db", cli.directory + "/none.sqlite", "--to", cli.directory + "/copy.sqlite",
        ])
        #expect(missing.status == 1)
        #expect(missing.error.contains("no database"))
        let created = try cli.run(["projects", "create", "shop", "--db", cli.directory + "/db.sqlite"])
        #expect(created.status == 0)
        let refused = try cli.run(["backup", "--db", cli.directory + "/db.sqlite", "--to", existing])
        #expect(refused.status == 1)
        #expect(refused.error.contains("exists"))
        #expect(FileManager.default.contents(atPath: existing) == Data("keep me".utf8))
        let usage = try cli.run(["backup", "--db", cli.directory + "/db.sqlite"])
        #expect(usage.status == 64)
        let copied = try cli.run([
            "backup", "--db", cli.directory + "/db.sqlite", "--to", cli.directory + "/copy.sqlite",
        ])
        #expect(copied.status == 0, "\(copied.error)")
        #expect(copied.output.contains("0 events"))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: cli.directory).filter { $0.hasPrefix("copy") }
                == ["copy.sqlite"])
    }
}
