import Footprint
import FootprintSQLite
import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

/// The lifecycle events of one phone, from install to update, through the real tracker (a real
/// queue folder, relaunched on it) to the real server over loopback.
struct EndToEndLifecycleTests {
    let harness: EndToEndHarness

    init() throws {
        harness = try EndToEndHarness()
    }

    func configuration(version: String, build: String) -> Tracker.Configuration {
        var configuration = harness.configuration(device: "phone", transport: URLSessionTransport())
        configuration.context.appVersion = version
        configuration.context.appBuild = build
        return configuration
    }

    /// One launch of the app: a new tracker on the phone's folder, `body` plays it, then the
    /// app goes to the background and everything is delivered.
    func launch(version: String, build: String, _ body: (Tracker) -> Void) async {
        let tracker = Tracker(configuration: configuration(version: version, build: build))
        body(tracker)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            tracker.applicationDidEnterBackground { done.resume() }
        }
    }

    /// The stored events' names and properties, in the order the server stored them.
    func stored() throws -> [(name: String, properties: JSONValue)] {
        var options = SQLiteDatabase.Options()
        options.readOnly = true
        let database = try SQLiteDatabase(
            path: harness.fixture.directory + "/events.sqlite", options: options)
        return try database.prepare(
            "SELECT name, \(StoredPayload.columns) FROM events WHERE type = 'track' ORDER BY id"
        ).rows { row in
            (row.text(at: 0) ?? "", try StoredPayload.message(row, at: 1)["properties"] ?? .object([:]))
        }
    }

    @Test func installUpdateColdAndWarmOpensBackgroundAndDeepLinksArriveOnceEach() async throws {
        defer { harness.shutDown() }
        // First launch: installed, opened cold, backgrounded, back (warm), a deep link.
        await launch(version: "3.1", build: "310") { tracker in
            tracker.applicationDidFinishLaunching()
            tracker.applicationDidBecomeActive()
            tracker.track("Home Viewed")
            tracker.applicationDidEnterBackground()
            tracker.applicationWillEnterForeground()
            tracker.applicationDidBecomeActive()
            tracker.handle(url: URL(string: "shop://product/42")!, referringApplication: "com.example.mail")
        }
        // Relaunch of the same release, opened by a URL: only the open.
        await launch(version: "3.1", build: "310") { tracker in
            tracker.applicationDidFinishLaunching(
                AppOpening(url: "shop://promo/spring", referringApplication: "com.apple.mobilesafari"))
            tracker.applicationDidBecomeActive()
        }
        // The new release: updated once, then plain opens.
        for _ in 0..<2 {
            await launch(version: "3.2", build: "320") { tracker in
                tracker.applicationDidBecomeActive()
                tracker.applicationDidFinishLaunching()
            }
        }

        let events = try stored()
        #expect(
            events.map(\.name) == [
                "Application Installed", "Application Opened", "Home Viewed", "Application Backgrounded",
                "Application Opened", "Deep Link Opened", "Application Backgrounded",
                "Application Opened", "Application Backgrounded",
                "Application Updated", "Application Opened", "Application Backgrounded",
                "Application Opened", "Application Backgrounded",
            ])
        #expect(events[0].properties == ["version": "3.1", "build": "310"])
        #expect(events[1].properties == ["from_background": false, "version": "3.1", "build": "310"])
        #expect(events[4].properties == ["from_background": true, "version": "3.1", "build": "310"])
        #expect(
            events[5].properties == ["url": "shop://product/42", "referring_application": "com.example.mail"])
        #expect(
            events[7].properties == [
                "from_background": false, "url": "shop://promo/spring",
                "referring_application": "com.apple.mobilesafari", "version": "3.1", "build": "310",
            ])
        #expect(
            events[9].properties == [
                "version": "3.2", "build": "320", "previous_version": "3.1", "previous_build": "310",
            ])
        let stored = try harness.storedMessageIds()
        #expect(Set(stored).count == stored.count, "no event stored twice")
        #expect(Set(stored) == Set(harness.capturedMessageIds))

        // The reports count them like any other event.
        let report = try harness.server.report(project: "default")
        #expect(report.totalEvents == events.count)
        let counts = Dictionary(report.topEvents.map { ($0.event, $0.count) }, uniquingKeysWith: +)
        #expect(counts["Application Installed"] == 1)
        #expect(counts["Application Updated"] == 1)
        #expect(counts["Application Opened"] == 5)
        #expect(counts["Application Backgrounded"] == 5)
        #expect(counts["Deep Link Opened"] == 1)
    }

    @Test func withConsentRequiredThePhoneSendsNothingUntilTheOptIn() async throws {
        defer { harness.shutDown() }
        var configuration = configuration(version: "3.1", build: "310")
        configuration.requiresConsent = true
        let tracker = Tracker(configuration: configuration)
        tracker.applicationDidFinishLaunching()
        tracker.track("Before Consent")
        await tracker.flushed()
        #expect(
            !FileManager.default.fileExists(atPath: harness.fixture.directory + "/devices/phone"),
            "no queue folder before the opt-in")
        tracker.optIn()
        tracker.track("After Consent")
        await tracker.flushed()
        #expect(try stored().map(\.name) == ["After Consent"])
    }
}
