import Foundation
import Testing

@testable import Footprint

/// What the UI adapter observes and does with its host's lifecycle: a late install plays the
/// activation it missed; an app extension hears its host's notifications and flushes on them.
struct HostLifecycleTests {
    static let app = HostLifecycle(host: .application)
    static let appExtension = HostLifecycle(host: .appExtension)

    @Test(arguments: [
        (HostLifecycle.ApplicationState?.some(.active), [HostLifecycle.Action.becameActive]),
        (.inactive, []), (.background, []), (nil, []),
    ])
    func anAppInstalledWhileActivePlaysTheActivation(
        state: HostLifecycle.ApplicationState?, played: [HostLifecycle.Action]
    ) {
        #expect(Self.app.actions(at: state) == played)
        #expect(Self.appExtension.actions(at: state).isEmpty)
    }

    @Test func anAppHearsTheApplicationsNotifications() {
        #expect(
            Self.app.observed == [
                .didFinishLaunching, .didBecomeActive, .willEnterForeground, .didEnterBackground,
            ])
        #expect(
            Self.app.observed.map { Self.app.actions(for: $0) } == [
                [.launched], [.becameActive], [.enteringForeground], [.enteredBackground],
            ])
    }

    @Test func anExtensionFlushesWhenItsHostResignsOrLeaves() {
        #expect(
            Self.appExtension.observed == [
                .hostDidBecomeActive, .hostWillEnterForeground, .hostWillResignActive,
                .hostDidEnterBackground,
            ])
        #expect(Self.appExtension.actions(for: .hostWillResignActive) == [.flush])
        #expect(Self.appExtension.actions(for: .hostDidEnterBackground) == [.enteredBackground])
        #expect(Self.appExtension.actions(for: .hostDidBecomeActive) == [.becameActive])
        // Nothing an app extension observes is an application notification.
        #expect(Set(Self.appExtension.observed).isDisjoint(with: Self.app.observed))
    }
}

extension TrackerTests {
    /// Installed behind a consent screen, after the launch and the activation: what the adapter
    /// plays at install gives the cold start, the install and the first background.
    @Test func aLateInstallStillReportsTheColdStart() throws {
        let tracker = Tracker(configuration: configuration())
        for action in HostLifecycle(host: .application).actions(at: .active) {
            #expect(action == .becameActive)
            tracker.applicationDidBecomeActive()
        }
        tracker.applicationDidEnterBackground()
        #expect(tracker.waitUntilStored())
        #expect(
            try storedEventNames() == [
                "Application Installed", "Application Opened", "Application Backgrounded",
            ])
        #expect(try storedMessages()[1]["properties"]?["from_background"] == false)
    }
}
