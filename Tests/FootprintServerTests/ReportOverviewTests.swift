import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

/// ``ReportService/overview(project:parameters:)`` on a real SQLite file: every field of the
/// ``Report``, people merged across identify, ranges and filters.
struct ReportOverviewTests {
    let directory: String
    let store: SQLiteEventStore
    let service: ReportService
    let project: Project
    /// 2026-11-29T08:00Z.
    let day = Timestamp(iso8601: "2026-11-29T08:00:00.000Z")!
    let nextDay: Int64 = 86_400_000

    init() throws {
        directory =
            NSTemporaryDirectory()
            + "footprint-overview-\(UUIDv7.make(at: Timestamp(millisecondsSince1970: 0)))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var configuration = SQLiteEventStore.Configuration()
        configuration.synchronous = "NORMAL"
        store = try SQLiteEventStore(path: directory + "/store.sqlite", configuration: configuration)
        service = ReportService(stores: Stores(store))
        project = try store.createProject(named: "shop")
    }

    func close() {
        store.close()
        try? FileManager.default.removeItem(atPath: directory)
    }

    func event(
        _ id: String, _ type: MessageType, name: String? = nil, visitor: String, userId: String? = nil,
        at offset: Int64 = 0, properties: JSONObject = [:], appVersion: String = "2.0"
    ) -> EventRecord {
        let message = Message(
            type: type, messageId: id, anonymousId: visitor, userId: userId,
            event: type == .track ? name : nil, name: type == .track ? nil : name,
            timestamp: day.adding(milliseconds: offset), context: ["app": ["version": .string(appVersion)]],
            properties: properties)
        return EventRecord(message: message, time: message.timestamp, receivedAt: day)
    }

    /// Stores `events` with the identity links their identify messages make (as the decoder
    /// does).
    func write(_ events: [EventRecord], evicted: Int = 0) throws {
        let links = events.compactMap { record -> IdentityLink? in
            guard record.type == .identify, let anonymousId = record.anonymousId, let userId = record.userId
            else { return nil }
            return IdentityLink(anonymousId: anonymousId, userId: userId)
        }
        _ = try store.write(
            IngestBatch(
                projectId: project.id, events: events, identityLinks: links, evictedCount: evicted,
                batchKey: "k\(events.count)", receivedAt: day))
    }

    /// The overview over every event's days, with `query`'s parameters.
    func overview(_ query: [String: String] = [:]) throws -> Report {
        try service.overview(
            project: project,
            parameters: service.parametersCoveringEveryEvent(project: project, query: query, now: day))
    }

    @Test func pagesDwellEventsAndDaysCountPeopleAcrossIdentify() throws {
        defer { close() }
        try write(
            [
                event("1", .screen, name: "Home", visitor: "a"),
                event(
                    "2", .track, name: "$screen_leave", visitor: "a", at: 900,
                    properties: ["$page_name": "Home", "duration_ms": 900]),
                event("3", .screen, name: "Home", visitor: "a", at: 1000),
                event("4", .identify, visitor: "a", userId: "u1", at: 2000),
                // The next day: u1 on another device, and b.
                event("5", .screen, name: "Home", visitor: "a2", userId: "u1", at: nextDay),
                event("6", .screen, name: "Home", visitor: "b", at: nextDay),
                event(
                    "7", .track, name: "$screen_leave", visitor: "b", at: nextDay + 4,
                    properties: ["$page_name": "Home", "duration_ms": 4]),
                event("8", .screen, name: "Cart", visitor: "b", at: nextDay + 5),
                event("9", .track, name: "Add To Cart", visitor: "b", at: nextDay + 6),
                event("10", .track, name: "Add To Cart", visitor: "a2", userId: "u1", at: nextDay + 7),
            ], evicted: 3)
        let report = try overview()
        #expect(report.project == "shop")
        #expect(report.fromDay == "2026-11-29")
        #expect(report.toDay == "2026-11-30")
        #expect(report.totalEvents == 10)
        #expect(report.lostEvents == 3)
        #expect(report.uniqueVisitors == 2, "a, a2 and u1 are one person")
        #expect(
            report.pages == [
                PageStatistics(
                    page: "Home", pageViews: 4, uniqueVisitors: 2, averageDwellMilliseconds: 452,
                    dwellSamples: 2),
                PageStatistics(
                    page: "Cart", pageViews: 1, uniqueVisitors: 1, averageDwellMilliseconds: nil,
                    dwellSamples: 0),
            ])
        #expect(
            report.topEvents == [
                EventStatistics(event: "$screen_leave", count: 2, uniqueVisitors: 2),
                EventStatistics(event: "Add To Cart", count: 2, uniqueVisitors: 2),
            ])
        #expect(
            report.usersPerDay == [
                DailyUsers(day: "2026-11-29", users: 1), DailyUsers(day: "2026-11-30", users: 2),
            ])
    }

    @Test func namedEventsElementsAndItems() throws {
        defer { close() }
        let click: (String, String, String?, String?) -> EventRecord = { id, path, item, named in
            var properties: JSONObject = [
                "$element_path": .string(path), "$page_name": "List", "$element_text": "Buy",
            ]
            if let item { properties["$item_id"] = .string(item) }
            if let named { properties["$event_name"] = .string(named) }
            return self.event(id, .track, name: "$element_click", visitor: id, properties: properties)
        }
        let item: (String, String, String) -> EventRecord = { id, name, item in
            self.event(id, .track, name: name, visitor: "a", properties: ["$item_id": .string(item)])
        }
        try write([
            click("c1", "#buy#UIButton#Cell[0:*]", "sku-1", "add_to_cart"),
            click("c2", "#buy#UIButton#Cell[0:*]", "sku-2", "add_to_cart"),
            click("c3", "#share#UIButton", nil, nil),
            item("e1", "$item_exposure", "sku-1"), item("e2", "$item_exposure", "sku-1"),
            item("e3", "$item_exposure", "sku-2"), item("e4", "$item_exposure", "sku-3"),
            item("s1", "$item_skip", "sku-3"), item("s2", "$item_skip", "sku-4"),
        ])
        let report = try overview()
        #expect(report.namedEvents == [EventStatistics(event: "add_to_cart", count: 2, uniqueVisitors: 2)])
        #expect(
            report.topElements == [
                ElementStatistics(
                    path: "#buy#UIButton#Cell[0:*]", page: "List", text: "Buy", clicks: 2, uniqueVisitors: 2),
                ElementStatistics(
                    path: "#share#UIButton", page: "List", text: "Buy", clicks: 1, uniqueVisitors: 1),
            ])
        #expect(
            report.items == [
                ItemStatistics(itemId: "sku-1", exposures: 2, skips: 0, clicks: 1),
                ItemStatistics(itemId: "sku-2", exposures: 1, skips: 0, clicks: 1),
                ItemStatistics(itemId: "sku-3", exposures: 1, skips: 1, clicks: 0),
                ItemStatistics(itemId: "sku-4", exposures: 0, skips: 1, clicks: 0),
            ])
        #expect(
            report.topEvents == [
                EventStatistics(event: "$item_exposure", count: 4, uniqueVisitors: 1),
                EventStatistics(event: "$element_click", count: 3, uniqueVisitors: 3),
                EventStatistics(event: "$item_skip", count: 2, uniqueVisitors: 1),
            ])
    }

    @Test func aRangeAndFiltersNarrowEverythingButTheStoredTotals() throws {
        defer { close() }
        try write([
            event("1", .screen, name: "Home", visitor: "a"),
            event(
                "2", .track, name: "$element_click", visitor: "a", at: 10,
                properties: ["$event_name": "tap", "$element_path": "#tap"]),
            // The plan names only element clicks.
            event("5", .track, name: "Tap", visitor: "a", at: 20, properties: ["$event_name": "other"]),
            event("3", .screen, name: "Home", visitor: "b", at: nextDay),
            event("4", .screen, name: "Cart", visitor: "c", at: 2 * nextDay, appVersion: "1.0"),
        ])
        let secondDay = try overview(["from": "2026-11-30", "to": "2026-11-30"])
        #expect(secondDay.fromDay == "2026-11-30")
        #expect(secondDay.toDay == "2026-11-30")
        #expect(secondDay.totalEvents == 5, "the project's whole count")
        #expect(secondDay.uniqueVisitors == 1)
        #expect(secondDay.pages.map(\.page) == ["Home"])
        #expect(secondDay.topEvents.isEmpty)
        #expect(secondDay.namedEvents.isEmpty)
        #expect(secondDay.usersPerDay == [DailyUsers(day: "2026-11-30", users: 1)])

        let whole = try overview()
        #expect(whole.namedEvents == [EventStatistics(event: "tap", count: 1, uniqueVisitors: 1)])
        #expect(whole.topElements.map(\.path) == ["#tap"])

        let fromTheSecondDay = try overview(["from": "2026-11-30"])
        #expect(fromTheSecondDay.toDay == "2026-12-01", "to: the newest event's day")
        #expect(fromTheSecondDay.uniqueVisitors == 2)

        let version = try overview(["app_version": "1.0"])
        #expect(version.fromDay == "2026-11-29")
        #expect(version.pages.map(\.page) == ["Cart"])
        #expect(version.uniqueVisitors == 1)
        #expect(version.namedEvents.isEmpty, "the click was in version 2.0")
        #expect(try overview(["app_version": "2.0"]).namedEvents.map(\.event) == ["tap"])
    }

    @Test func theDefaultRangeCoversEveryEventOrTheLast30Days() throws {
        defer { close() }
        let empty = try service.parametersCoveringEveryEvent(project: project, now: day)
        #expect(empty.fromDay == "2026-10-31")
        #expect(empty.toDay == "2026-11-29")
        let nothing = try service.overview(project: project, parameters: empty)
        #expect(nothing.totalEvents == 0)
        #expect(nothing.pages.isEmpty)
        #expect(nothing.usersPerDay.isEmpty)

        try write([
            event("1", .screen, name: "Home", visitor: "a", at: -400 * nextDay),
            event("2", .screen, name: "Home", visitor: "a", at: 3 * nextDay),
        ])
        let every = try service.parametersCoveringEveryEvent(project: project, now: day)
        #expect(every.fromDay == "2025-10-25")
        #expect(every.toDay == "2026-12-02")
        #expect(try service.overview(project: project, parameters: every).pages.first?.pageViews == 2)
        let lateStart = try service.parametersCoveringEveryEvent(
            project: project, query: ["from": "2026-12-10"], now: day)
        #expect(lateStart.fromDay == "2026-12-10")
        #expect(lateStart.toDay == "2026-12-10", "a start after the newest event is a range of its own")
        #expect(throws: ServerError.self) {
            try service.parametersCoveringEveryEvent(project: project, query: ["to": "30 Nov"], now: day)
        }
    }

    @Test func thePeopleOfAnIdentifiedDeviceAreOneVisitorOnEveryPage() throws {
        defer { close() }
        // One device before and after signing in, and a second device signed in.
        try write([
            event("1", .screen, name: "Home", visitor: "phone"),
            event("2", .identify, visitor: "phone", userId: "u1", at: 1),
            event("3", .screen, name: "Home", visitor: "phone", userId: "u1", at: 2),
            event("4", .screen, name: "Home", visitor: "tablet", userId: "u1", at: 3),
        ])
        let report = try overview()
        #expect(report.uniqueVisitors == 1)
        #expect(report.pages.first?.uniqueVisitors == 1)
        #expect(report.usersPerDay == [DailyUsers(day: "2026-11-29", users: 1)])
    }

    /// A shared device identified as u-b, and in a later batch (the next day) as u-a: it stands
    /// for u-a, the smallest of its user ids, as REPORTS.md says, not for u-b, the first linked.
    /// Its events without a user id are u-a's in the reports, in the export and in a deletion.
    @Test func aDeviceLinkedToTwoUsersIsTheSmallestOfThem() throws {
        defer { close() }
        try write([
            event("1", .screen, name: "Home", visitor: "shared"),
            event("2", .identify, visitor: "shared", userId: "u-b", at: 1),
            event("3", .screen, name: "Cart", visitor: "phone-b", userId: "u-b", at: 2),
        ])
        try write([
            event("4", .identify, visitor: "shared", userId: "u-a", at: nextDay),
            event("5", .screen, name: "Home", visitor: "phone-a", userId: "u-a", at: nextDay + 1),
        ])
        #expect(try store.identityLinks(projectId: project.id) == ["shared": "u-a"])
        let report = try overview()
        #expect(report.uniqueVisitors == 2)
        #expect(
            report.pages == [
                PageStatistics(
                    page: "Home", pageViews: 2, uniqueVisitors: 1, averageDwellMilliseconds: nil,
                    dwellSamples: 0),
                PageStatistics(
                    page: "Cart", pageViews: 1, uniqueVisitors: 1, averageDwellMilliseconds: nil,
                    dwellSamples: 0),
            ], "the shared device's view of Home is u-a's")
        #expect(
            report.usersPerDay == [
                DailyUsers(day: "2026-11-29", users: 2), DailyUsers(day: "2026-11-30", users: 1),
            ])
        let messageIds = { (export: PersonExport) in
            Set(export.events.compactMap { $0["messageId"]?.stringValue })
        }
        let shared = try store.exportPerson(id: "shared", projectId: project.id)
        #expect(shared.person == "u-a")
        #expect(messageIds(shared) == ["1", "4", "5"])
        #expect(messageIds(try store.exportPerson(id: "u-b", projectId: project.id)) == ["2", "3"])
        let deletion = try store.deletePerson(
            id: "u-a", projectId: project.id, request: PersonDeletion.Request(requestedBy: "test", at: day))
        #expect(deletion.events == 3)
        let after = try overview()
        #expect(after.pages.map(\.page) == ["Cart"])
        #expect(after.uniqueVisitors == 1)
    }
}
