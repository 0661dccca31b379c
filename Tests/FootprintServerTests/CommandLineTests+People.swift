import FootprintServer
import FootprintWire
import Foundation
import Testing

extension CommandLineTests {
    /// `footprint people export`, `delete` and `deletions`, and `projects set --retention-days`,
    /// on a database the CLI then reads back.
    @Test func peopleAreExportedDeletedAndLoggedFromTheCommandLine() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = directory + "/people.sqlite"
        do {
            let store = try SQLiteEventStore(path: database)
            defer { store.close() }
            let project = try store.createProject(named: "shop")
            let time = Timestamp(millisecondsSince1970: 1_796_083_200_000)
            _ = try store.write(
                IngestBatch(
                    projectId: project.id,
                    events: ["m1", "m2"].map { id in
                        EventRecord(
                            messageId: id, type: .track, name: "Opened", time: time, clientTimestamp: time,
                            sentAt: nil, receivedAt: time, anonymousId: "device-1", userId: nil,
                            sessionId: nil,
                            page: nil, elementPath: nil, appVersion: nil, os: nil,
                            payload: #"{"type":"track"}"#,
                            similarPath: nil, elementText: nil, itemId: nil, durationMilliseconds: nil,
                            planEventName: nil)
                    }, identityLinks: [IdentityLink(anonymousId: "device-1", userId: "user-1")],
                    receivedAt: time))
        }
        let export = try run(["people", "export", "user-1", "--db", database, "--json"])
        #expect(export.status == 0, "\(export.error)")
        let exported = try JSONParser().parse(Array(export.output.utf8))
        #expect(exported["person"] == "user-1")
        #expect(exported["events"]?.arrayValue?.count == 2)
        let deleted = try run([
            "people", "delete", "device-1", "--project", "shop", "--db", database, "--json",
        ])
        #expect(deleted.status == 0, "\(deleted.error)")
        #expect(try JSONParser().parse(Array(deleted.output.utf8))["events"] == 2)
        let log = try run(["people", "deletions", "--db", database, "--json"])
        let entries = try JSONParser().parse(Array(log.output.utf8)).arrayValue
        #expect(entries?.first?["requestedBy"] == "cli")
        #expect(!log.output.contains("user-1") && !log.output.contains("device-1"))
        let retention = try run(["projects", "set", "shop", "--retention-days", "90", "--db", database])
        #expect(retention.status == 0, "\(retention.error)")
        #expect(retention.output.contains("90 days"))
        #expect(try run(["people", "delete", "--db", database]).status == 64)
    }
}
