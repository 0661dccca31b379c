import FootprintSQLite
import Foundation
import Testing

@testable import Footprint

extension TrackerTests {
    func storedEventNames() throws -> [String] {
        try storedMessages().compactMap { $0["event"]?.stringValue }
    }

    @Test func lifecycleEventsAreStoredAndTheInstallIsNotRepeatedAfterARelaunch() throws {
        do {
            let tracker = Tracker(configuration: configuration())
            tracker.applicationDidFinishLaunching(AppOpening(url: "shop://home"))
            tracker.applicationDidBecomeActive()
            tracker.applicationDidEnterBackground()
            tracker.applicationWillEnterForeground()
            tracker.handle(url: URL(string: "shop://product/42")!)
            #expect(tracker.waitUntilStored())
        }
        let tracker = Tracker(configuration: configuration())
        tracker.applicationDidFinishLaunching()
        #expect(tracker.waitUntilStored())
        #expect(
            try storedEventNames() == [
                "Application Installed", "Application Opened", "Application Backgrounded",
                "Application Opened", "Deep Link Opened", "Application Opened",
            ])
        let stored = try storedMessages()
        #expect(stored[1]["properties"]?["url"] == "shop://home")
        #expect(stored[4]["properties"]?["url"] == "shop://product/42")
    }

    @Test func aNewBuildIsReportedAsAnUpdateOnce() throws {
        do {
            let tracker = Tracker(configuration: configuration())
            tracker.applicationDidFinishLaunching()
            #expect(tracker.waitUntilStored())
        }
        var updated = configuration()
        updated.context.appVersion = "2.2"
        updated.context.appBuild = "220"
        for _ in 0..<2 {
            let tracker = Tracker(configuration: updated)
            tracker.applicationDidFinishLaunching()
            #expect(tracker.waitUntilStored())
        }
        #expect(
            try storedEventNames() == [
                "Application Installed", "Application Opened", "Application Updated", "Application Opened",
                "Application Opened",
            ])
        let update = try storedMessages()[2]["properties"]
        #expect(
            update == ["version": "2.2", "build": "220", "previous_version": "2.1", "previous_build": "210"])
    }

    @Test func withConsentRequiredNothingIsStoredBeforeTheOptIn() throws {
        var configuration = configuration()
        configuration.requiresConsent = true
        do {
            let tracker = Tracker(configuration: configuration)
            tracker.applicationDidFinishLaunching()
            tracker.identify(userId: "user-1")
            tracker.track("before consent")
            tracker.handle(url: URL(string: "shop://x")!)
            #expect(tracker.waitUntilStored())
            #expect(tracker.identity()?.isOptedOut == true)
            #expect(!FileManager.default.fileExists(atPath: directory.path + "/queue.sqlite"))
            #expect(captured.current.isEmpty)
            tracker.optIn()
            tracker.track("after consent")
            #expect(tracker.waitUntilStored())
            #expect(try storedEventNames() == ["after consent"])
            #expect(try storedMessages().first?["userId"] == "user-1")
        }
        // The choice is kept, and the release seen before the opt-in is not reported as an install.
        let tracker = Tracker(configuration: configuration)
        tracker.applicationDidFinishLaunching()
        tracker.track("next launch")
        #expect(tracker.waitUntilStored())
        #expect(try storedEventNames() == ["after consent", "Application Opened", "next launch"])
        tracker.optOut()
        tracker.track("after opt-out")
        #expect(tracker.waitUntilStored())
        #expect(try storedMessages().isEmpty)
    }

    @Test func withConsentRequiredAnOptOutBeforeAnyOptInStoresNothing() throws {
        var configuration = configuration()
        configuration.requiresConsent = true
        for _ in 0..<2 {
            let tracker = Tracker(configuration: configuration)
            tracker.optOut()
            tracker.track("never")
            #expect(tracker.waitUntilStored())
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }
}
