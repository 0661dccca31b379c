import FootprintSQLite
import FootprintSynthetic
import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

/// Deleting and exporting a person: the store after a deletion answers every report as a store
/// that never held the person, and later events of the person are refused.
@Suite(.serialized) struct PeopleTests {
    /// A synthetic data set in the batches it is written in.
    struct DataSet {
        var batches: [(events: [EventRecord], links: [IdentityLink])] = []
        let end: Timestamp

        /// - Parameter end: the end of its days, else the synthetic traffic's.
        init(seed: UInt64, end: Timestamp? = nil) {
            var configuration = RollupTests.synthetic(seed: seed)
            if let end { configuration.end = end }
            self.end = configuration.end
            var traffic = SyntheticTraffic(configuration: configuration)
            for _ in 0..<4 {
                var batch: (events: [EventRecord], links: [IdentityLink]) = ([], [])
                while batch.events.count < 500 {
                    let session = traffic.session()
                    batch.events += session.events
                    batch.links += session.links
                }
                batches.append(batch)
            }
        }

        /// The same batches without what `keep` refuses.
        func filtered(events keep: (EventRecord) -> Bool, links keepLink: (IdentityLink) -> Bool) -> DataSet {
            var copy = self
            copy.batches = batches.map { ($0.events.filter(keep), $0.links.filter(keepLink)) }
            return copy
        }

        func write(into store: any EventStore, project: Project) throws {
            for batch in ingestBatches(project: project) { _ = try store.write(batch) }
        }

        /// Its batches as a store takes them, received at its end.
        func ingestBatches(project: Project) -> [IngestBatch] {
            batches.map {
                IngestBatch(
                    projectId: project.id, events: $0.events, identityLinks: $0.links, receivedAt: end)
            }
        }

        /// A user id that was linked to anonymous ids and has events of its own.
        func linkedUser() -> String? {
            let users = Set(batches.flatMap { $0.links.map(\.userId) })
            return users.sorted().first { user in
                batches.contains { $0.events.contains { $0.userId == user } }
            }
        }

        /// An anonymous id never linked to a user, with events without a user id.
        func unlinkedDevice() -> String? {
            let linked = Set(batches.flatMap { $0.links.map(\.anonymousId) })
            return batches.flatMap { $0.events.filter { $0.userId == nil }.compactMap(\.anonymousId) }
                .sorted()
                .first { !linked.contains($0) }
        }

        /// The data set with a shared device: ``unlinkedDevice()`` linked in the first batch to
        /// the largest user id with events and in the last batch to the smallest, so the user it
        /// stands for (the smallest) is not the one it was linked to first.
        func withSharedDevice() -> (data: DataSet, device: String, first: String, smallest: String)? {
            let users = Set(batches.flatMap { $0.events.compactMap(\.userId) }).sorted()
            guard let device = unlinkedDevice(), let smallest = users.first, let largest = users.last,
                smallest != largest, batches.count > 1
            else { return nil }
            var copy = self
            copy.batches[0].links.append(IdentityLink(anonymousId: device, userId: largest))
            copy.batches[batches.count - 1].links.append(IdentityLink(anonymousId: device, userId: smallest))
            return (copy, device, largest, smallest)
        }
    }

    /// Every report (``EveryReport``) over several filters, as text to compare.
    static func everyReport(_ store: any EventStore, _ project: Project, end: Timestamp) throws -> [String] {
        let day: Int64 = 86_400_000
        let everything = ReportFilter(
            from: end.adding(milliseconds: -11 * day), to: end.adding(milliseconds: day))
        var filters = [everything]
        filters.append(ReportFilter(from: everything.from, to: everything.to, page: "ProductList"))
        // Not on day boundaries: answered from the events.
        filters.append(ReportFilter(from: end.adding(milliseconds: -3 * day - 3_600_000), to: end))
        return try EveryReport.answers(store, project, filters: filters, now: end)
    }

    /// Deletes the person `pick` chooses from a store of the data set, and compares every
    /// report with a store written from the data set without the person.
    static func expectDeletionEqualsDataWithout(
        seed: UInt64, pick: (DataSet) -> String?, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        try expectDeletionEqualsDataWithout(DataSet(seed: seed), pick: pick, sourceLocation: sourceLocation)
    }

    /// ``expectDeletionEqualsDataWithout(seed:pick:sourceLocation:)`` on `data`.
    static func expectDeletionEqualsDataWithout(
        _ data: DataSet, pick: (DataSet) -> String?, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let id = try #require(pick(data), sourceLocation: sourceLocation)
        try RollupTests.withStore { store, project in
            try data.write(into: store, project: project)
            let selection = PersonSelection(id: id, links: try store.identityLinks(projectId: project.id))
            let without = data.filtered(
                events: { !selection.owns(anonymousId: $0.anonymousId, userId: $0.userId) },
                links: { !selection.owns(link: $0.anonymousId, userId: $0.userId) })
            let personEvents =
                data.batches.map(\.events.count).reduce(0, +)
                - without.batches.map(\.events.count).reduce(0, +)
            #expect(personEvents > 0, sourceLocation: sourceLocation)
            let export = try store.exportPerson(id: id, projectId: project.id)
            #expect(export.events.count == personEvents, sourceLocation: sourceLocation)
            let before = try everyReport(store, project, end: data.end)

            let deletion = try store.deletePerson(
                id: id, projectId: project.id,
                request: PersonDeletion.Request(requestedBy: "test", at: data.end))
            #expect(deletion.events == personEvents, sourceLocation: sourceLocation)
            #expect(try store.exportPerson(id: id, projectId: project.id).events.isEmpty)
            #expect(try store.exportPerson(id: id, projectId: project.id).identityLinks.isEmpty)
            let after = try everyReport(store, project, end: data.end)
            let changed = after != before
            #expect(changed, "the person counted in some report", sourceLocation: sourceLocation)

            try RollupTests.withStore { reduced, reducedProject in
                try without.write(into: reduced, project: reducedProject)
                let expected = try everyReport(reduced, reducedProject, end: data.end)
                #expect(after.count == expected.count, sourceLocation: sourceLocation)
                for (got, want) in zip(after, expected) where got != want {
                    Issue.record(
                        "after the deletion: \(got)\nwithout the person: \(want)",
                        sourceLocation: sourceLocation)
                }
                #expect(
                    try store.eventCount(projectId: project.id)
                        == reduced.eventCount(projectId: reducedProject.id),
                    sourceLocation: sourceLocation)
            }
            // The rollups still agree with the events.
            let day: Int64 = 86_400_000
            let everything = ReportFilter(
                from: data.end.adding(milliseconds: -11 * day), to: data.end.adding(milliseconds: day))
            try RollupTests.expectSameReports(
                RollupTests.both(store, project, everything), sessions: true, dwell: true, "after a deletion")
        }
    }

    @Test(arguments: [UInt64(1)])
    func deletingAUserGivesTheReportsOfTheDataWithoutThem(seed: UInt64) throws {
        try Self.expectDeletionEqualsDataWithout(seed: seed) { $0.linkedUser() }
    }

    @Test func deletingThroughALinkedAnonymousIdDeletesItsUser() throws {
        try Self.expectDeletionEqualsDataWithout(seed: 4) { data in
            let user = data.linkedUser()
            return data.batches.flatMap(\.links).first { $0.userId == user }?.anonymousId
        }
    }

    @Test func deletingAnUnlinkedDeviceGivesTheReportsOfTheDataWithoutIt() throws {
        try Self.expectDeletionEqualsDataWithout(seed: 5) { $0.unlinkedDevice() }
    }

    /// A device linked to two users, the larger first, stands for the smaller (REPORTS.md, who
    /// a person is): in the links, the device's export, and a deletion of that user, which takes
    /// the device's events without a user id and leaves every report as the data set's without
    /// them.
    @Test func aSharedDeviceIsItsSmallestUserAndGoesWithThem() throws {
        let shared = try #require(DataSet(seed: 1).withSharedDevice())
        try RollupTests.withStore { store, project in
            try shared.data.write(into: store, project: project)
            #expect(try store.identityLinks(projectId: project.id)[shared.device] == shared.smallest)
            let export = try store.exportPerson(id: shared.device, projectId: project.id)
            #expect(export.person == shared.smallest)
            let deviceEvents = shared.data.batches.flatMap(\.events).filter {
                $0.anonymousId == shared.device && $0.userId == nil
            }
            let exported = Set(export.events.compactMap { $0["messageId"]?.stringValue })
            #expect(!deviceEvents.isEmpty)
            #expect(deviceEvents.allSatisfy { exported.contains($0.messageId) })
            #expect(try store.exportPerson(id: shared.first, projectId: project.id).person == shared.first)
        }
        try Self.expectDeletionEqualsDataWithout(shared.data) { _ in shared.smallest }
    }

    /// Events and links carrying a deleted id are refused until the period ends; the log keeps
    /// no id in clear.
    @Test func laterEventsOfADeletedPersonAreRefusedForThePeriod() throws {
        try withTemporaryStore("footprint-people") { store, project in
            let day: Int64 = 86_400_000
            let start = Timestamp(millisecondsSince1970: 1_796_083_200_000)
            func event(_ id: String, anonymousId: String, userId: String? = nil, at time: Timestamp)
                -> EventRecord
            {
                EventRecord(
                    messageId: id, type: .track, name: "Opened", time: time, clientTimestamp: time,
                    sentAt: nil,
                    receivedAt: time, anonymousId: anonymousId, userId: userId, sessionId: nil, page: nil,
                    elementPath: nil, appVersion: nil, os: nil, payload: "{}", similarPath: nil,
                    elementText: nil,
                    itemId: nil, durationMilliseconds: nil, planEventName: nil)
            }
            _ = try store.write(
                IngestBatch(
                    projectId: project.id,
                    events: [
                        event("m1", anonymousId: "device-9", at: start),
                        event("m2", anonymousId: "other", at: start),
                    ],
                    identityLinks: [IdentityLink(anonymousId: "device-9", userId: "jane@example.com")],
                    receivedAt: start))
            let deletion = try store.deletePerson(
                id: "jane@example.com", projectId: project.id,
                request: PersonDeletion.Request(requestedBy: "cli", at: start, refuseForDays: 30))
            #expect(deletion.events == 1)
            #expect(deletion.identityLinks == 1)
            #expect(deletion.refusedUntil == start.adding(milliseconds: 30 * day))

            let soon = start.adding(milliseconds: 29 * day)
            let resent = try store.write(
                IngestBatch(
                    projectId: project.id,
                    events: [
                        event("m1", anonymousId: "device-9", at: start),
                        event("m3", anonymousId: "other", at: soon),
                        event("m4", anonymousId: "new-device", userId: "jane@example.com", at: soon),
                    ],
                    identityLinks: [IdentityLink(anonymousId: "device-9", userId: "jane@example.com")],
                    receivedAt: soon))
            #expect(resent.refused == [0, 2])
            #expect(resent.stored == 1)
            #expect(resent.duplicates == 0)
            #expect(try store.identityLinks(projectId: project.id).isEmpty)
            #expect(try store.exportPerson(id: "jane@example.com", projectId: project.id).events.isEmpty)

            let later = start.adding(milliseconds: 30 * day)
            let back = try store.write(
                IngestBatch(
                    projectId: project.id, events: [event("m5", anonymousId: "device-9", at: later)],
                    receivedAt: later))
            #expect(back.refused.isEmpty && back.stored == 1, "the period is over")

            let log = try store.personDeletions(projectId: project.id)
            #expect(log.count == 1)
            #expect(log.first?["requestedBy"] == "cli")
            #expect(log.first?["events"] == 1)
            // No table of the deletion keeps an id in clear.
            let database = try SQLiteDatabase(path: store.path)
            for (table, columns) in [("person_deletions", Int32(7)), ("deleted_ids", 3)] {
                let rows = try database.prepare("SELECT * FROM \(table)").rows([]) { row in
                    (0..<columns).map { String(decoding: row.blob(at: $0), as: UTF8.self) }.joined()
                }
                #expect(!rows.isEmpty)
                for text in rows {
                    #expect(!text.contains("jane") && !text.contains("device-9"), "\(table): \(text)")
                }
            }
        }
    }

    /// An export holds the screen snapshots the person's devices uploaded (by a linked anonymous
    /// id, or naming the user id): each with its document and whether it has an image, never the
    /// image's bytes; another person's are not in it; the deletion removes exactly these.
    @Test func anExportHoldsThePersonsSnapshotsWithoutTheImagesBytes() throws {
        try withTemporaryStore("footprint-people-snapshots") { store, project in
            let start = Timestamp(millisecondsSince1970: 1_796_083_200_000)
            _ = try store.write(
                IngestBatch(
                    projectId: project.id, events: [],
                    identityLinks: [IdentityLink(anonymousId: "device-9", userId: "jane@example.com")],
                    receivedAt: start))
            let session = try ConnectSessions(stores: Stores(store)).start(project: project, now: start)
                .session
            func upload(anonymousId: String, userId: String?, page: String, image: Int) throws -> Int64 {
                var record = SnapshotSamples.record(
                    projectId: project.id, sessionId: session.id, page: page, imageBytes: image, at: start)
                record.anonymousId = anonymousId
                record.userId = userId
                record.document = JSONWriter.string(
                    [
                        "page": .string(page),
                        "elements": [["path": .string("#buy:#UIButton#\(page)"), "text": "Buy"]],
                    ])
                return try store.storeSnapshot(record, retention: SnapshotRetention()).id
            }
            let linked = try upload(anonymousId: "device-9", userId: nil, page: "Detail", image: 3_000)
            let named = try upload(
                anonymousId: "new-phone", userId: "jane@example.com", page: "Cart", image: 0)
            let stranger = try upload(anonymousId: "device-8", userId: nil, page: "Detail", image: 0)

            // The same person whichever of its ids is asked for.
            for id in ["jane@example.com", "device-9"] {
                let export = try store.exportPerson(id: id, projectId: project.id)
                #expect(export.snapshots.map { $0["id"]?.int64Value } == [linked, named])
                let first = try #require(export.snapshots.first)
                #expect(first["page"] == "Detail")
                #expect(first["anonymousId"] == "device-9")
                #expect(first["image"]?["format"] == "png")
                #expect(first["image"]?["url"] == .string("/v1/snapshots/\(linked)/image"))
                #expect(first["document"]?["elements"]?[0]?["path"] == "#buy:#UIButton#Detail")
                #expect(export.snapshots.last?["image"] == .null, "a wireframe: no image")
                #expect(export.snapshots.last?["userId"] == "jane@example.com")
                // The image's bytes (in any encoding) are not in the export, only its size.
                let text = JSONWriter.string(export.jsonValue)
                let png = SnapshotSamples.png(size: 3_000)
                #expect(!text.contains(Base64.encode(png).prefix(40)))
                #expect(text.contains("\"bytes\":"))
            }
            #expect(
                try store.exportPerson(id: "device-8", projectId: project.id).snapshots.map {
                    $0["id"]?.int64Value
                } == [stranger])

            _ = try store.deletePerson(
                id: "jane@example.com", projectId: project.id,
                request: PersonDeletion.Request(requestedBy: "test", at: start))
            #expect(try store.exportPerson(id: "jane@example.com", projectId: project.id).snapshots.isEmpty)
            #expect(try store.snapshot(id: stranger, projectId: project.id) != nil)
        }
    }

    /// Over HTTP: the admin token deletes and exports, the read token neither; the batch that
    /// resends a deleted person's event is answered with a `deleted_person` rejection.
    @Test func theAPIDeletesAndExportsWithTheAdminTokenOnly() throws {
        let fixture = try ReportFixture()
        defer { fixture.shutDown() }
        let admin = ["Authorization": "Bearer \(fixture.access.adminToken)"]
        let read = ["Authorization": "Bearer \(fixture.access.readToken)"]
        #expect(try fixture.client.send("DELETE", "/v1/people/u1", headers: read).status == 403)
        #expect(try fixture.client.send("GET", "/v1/people/u1/export", headers: read).status == 403)
        #expect(try fixture.client.send("DELETE", "/v1/people/u1").status == 401)

        let exported = try fixture.client.send("GET", "/v1/people/a1/export", headers: admin)
        #expect(exported.status == 200, "\(exported.text)")
        let export = try JSONParser().parse(exported.body)
        #expect(export["person"] == "u1", "a1 is linked to u1")
        #expect(export["events"]?.arrayValue?.count == 8, "a1's seven events and u1's view on a2")
        #expect(export["identityLinks"]?.arrayValue?.count == 1)
        #expect(export["snapshots"]?.arrayValue?.isEmpty == true, "no connect session uploaded any")

        let deleted = try fixture.client.send("DELETE", "/v1/people/u1?refuse_days=7", headers: admin)
        #expect(deleted.status == 200, "\(deleted.text)")
        let deletion = try JSONParser().parse(deleted.body)
        #expect(deletion["events"] == 8)
        #expect(deletion["identityLinks"] == 1)
        let traffic = try fixture.json("/v1/reports/traffic?\(ReportFixture.range)")
        #expect(traffic["pageViews"] == 2, "a3's two views are left")
        #expect(traffic["people"] == 1)

        let resend = try fixture.client.post(
            "/v1/batch",
            json: Payloads.batch(
                [
                    ReportFixture.message(
                        "screen", "m11", anon: "a1", session: "s4", at: "2026-11-03T10:00:00.000Z",
                        extra: #""name":"Home""#),
                    #"{"type":"track"}"#,
                    ReportFixture.message(
                        "screen", "m12", anon: "a3", session: "s3", at: "2026-11-03T10:00:00.000Z",
                        extra: #""name":"Home""#),
                ], sentAt: "2026-11-03T12:00:00.000Z"),
            writeKey: fixture.fixture.writeKey)
        #expect(resend.status == 200)
        let answer = try JSONParser().parse(resend.body)
        #expect(answer["stored"] == 1)
        #expect(answer["accepted"] == 1)
        let rejected = try #require(answer["rejected"]?.arrayValue)
        #expect(rejected.map { $0["index"]?.int64Value } == [0, 1])
        #expect(rejected.first?["code"] == "deleted_person")
        #expect(rejected.first?["messageId"] == "m11")
    }
}
