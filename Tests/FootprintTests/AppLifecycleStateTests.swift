import Testing

@testable import Footprint

struct AppLifecycleStateTests {
    let release = AppRelease(version: "2.1", build: "210")

    func state(remembered: AppRelease?, switches: AppLifecycleEvents = AppLifecycleEvents())
        -> AppLifecycleState
    {
        AppLifecycleState(switches: switches, current: release, remembered: remembered)
    }

    @Test func theFirstLaunchReportsTheInstallThenTheColdOpenWithItsURL() {
        var lifecycle = state(remembered: nil)
        let opening = AppOpening(url: "shop://cart", referringApplication: "com.apple.mobilesafari")
        let events = lifecycle.apply(.launched(opening))
        #expect(
            events == [
                .init(name: "Application Installed", properties: ["version": "2.1", "build": "210"]),
                .init(
                    name: "Application Opened",
                    properties: [
                        "from_background": false, "url": "shop://cart",
                        "referring_application": "com.apple.mobilesafari", "version": "2.1", "build": "210",
                    ]),
            ])
        #expect(lifecycle.remembered == release)
    }

    @Test func aNewReleaseReportsTheUpdateWithThePreviousOne() {
        var lifecycle = state(remembered: AppRelease(version: "2.0", build: "200"))
        let events = lifecycle.apply(.launched(AppOpening()))
        #expect(
            events.first
                == .init(
                    name: "Application Updated",
                    properties: [
                        "version": "2.1", "build": "210", "previous_version": "2.0", "previous_build": "200",
                    ]))
        #expect(events.map(\.name) == ["Application Updated", "Application Opened"])
    }

    @Test func theSameReleaseReportsOnlyTheOpen() {
        var lifecycle = state(remembered: release)
        #expect(lifecycle.apply(.launched(AppOpening())).map(\.name) == ["Application Opened"])
    }

    @Test func oneLaunchIsOpenedOnceWhateverSignalsRepeat() {
        var lifecycle = state(remembered: release)
        var names = lifecycle.apply(.launched(AppOpening())).map(\.name)
        names += lifecycle.apply(.becameActive).map(\.name)
        names += lifecycle.apply(.launched(AppOpening())).map(\.name)
        names += lifecycle.apply(.enteringForeground).map(\.name)
        #expect(names == ["Application Opened"])
    }

    @Test func activationWithoutTheLaunchIsTheColdOpen() {
        var lifecycle = state(remembered: nil)
        let events = lifecycle.apply(.becameActive)
        #expect(events.map(\.name) == ["Application Installed", "Application Opened"])
        #expect(events.last?.properties["from_background"] == false)
        #expect(lifecycle.apply(.launched(AppOpening())) == [])
    }

    @Test func backgroundAndReturnAreReportedOncePerChange() {
        var lifecycle = state(remembered: release)
        _ = lifecycle.apply(.launched(AppOpening()))
        #expect(lifecycle.apply(.enteredBackground).map(\.name) == ["Application Backgrounded"])
        #expect(lifecycle.apply(.enteredBackground) == [], "a second scene's background")
        let warm = lifecycle.apply(.enteringForeground)
        #expect(warm.map(\.name) == ["Application Opened"])
        #expect(warm.first?.properties["from_background"] == true)
        #expect(lifecycle.apply(.enteringForeground) == [], "a second scene's foreground")
        #expect(lifecycle.apply(.becameActive) == [])
    }

    @Test func aBackgroundLaunchIsNotBackgroundedAndItsFirstForegroundIsAWarmOpen() {
        var lifecycle = state(remembered: nil)
        #expect(lifecycle.apply(.enteredBackground) == [], "not known to be in the foreground")
        let events = lifecycle.apply(.enteringForeground)
        #expect(events.map(\.name) == ["Application Installed", "Application Opened"])
        #expect(events.last?.properties["from_background"] == true)
    }

    @Test func deepLinksAreReportedEachTime() {
        var lifecycle = state(remembered: release)
        let link = AppOpening(url: "https://shop.example/p/42", referringApplication: "com.example.mail")
        for _ in 0..<2 {
            #expect(
                lifecycle.apply(.openedURL(link)) == [
                    .init(
                        name: "Deep Link Opened",
                        properties: [
                            "url": "https://shop.example/p/42", "referring_application": "com.example.mail",
                        ])
                ])
        }
    }

    @Test func switchedOffEventsAreNotReportedButTheReleaseIsRemembered() {
        var lifecycle = state(remembered: nil, switches: .none)
        #expect(lifecycle.apply(.launched(AppOpening())) == [])
        #expect(lifecycle.apply(.enteredBackground) == [])
        #expect(lifecycle.apply(.enteringForeground) == [])
        #expect(lifecycle.apply(.openedURL(AppOpening(url: "shop://x"))) == [])
        #expect(lifecycle.remembered == release)
        var onlyOpens = AppLifecycleEvents.none
        onlyOpens.opens = true
        var later = state(remembered: AppRelease(version: "1.0", build: "100"), switches: onlyOpens)
        #expect(later.apply(.launched(AppOpening())).map(\.name) == ["Application Opened"])
    }

    @Test func aNotificationOverFourKilobytesIsLeftOut() {
        let small = AppOpening(notification: ["campaign": "spring"])
        #expect(small.properties == ["notification": ["campaign": "spring"]])
        let large = AppOpening(notification: ["body": .string(String(repeating: "x", count: 5000))])
        #expect(large.properties == [:])
    }

    @Test(arguments: [AppRelease(version: "2.1", build: "210"), AppRelease(version: nil, build: "7")])
    func theStoredReleaseReadsBack(release: AppRelease) {
        #expect(AppRelease(stored: release.stored) == release)
        #expect(AppRelease(stored: "not json") == nil)
    }
}
