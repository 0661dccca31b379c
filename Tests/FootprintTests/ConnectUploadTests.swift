import FootprintLoopback
import FootprintSQLite
import FootprintSimulation
import Foundation
import Testing

@testable import Footprint

/// Connect sessions end to end on the device side: a tracker, its capture core and a real
/// loopback HTTP receiver standing in for `POST /v1/snapshots`.
struct ConnectUploadTests {
    let directory = ScratchFolder()
    let clock = SimulatedClock(start: Timestamp(millisecondsSince1970: 1_795_981_800_000))
    static let token = "connect-token-0123456789"
    static let link = URL(string: "shop://footprint/connect?token=\(token)")!

    func configuration(_ receiver: LoopbackReceiver) -> Tracker.Configuration {
        var configuration = Tracker.Configuration.sending(to: receiver.url, storedIn: directory)
        configuration.clock = clock
        configuration.connectSession.minimumIntervalSeconds = 0
        var context = DeviceContext()
        context.appVersion = "2.1"
        context.appBuild = "210"
        context.osVersion = "18.1"
        context.deviceModel = "iPhone15,2"
        configuration.context = context
        return configuration
    }

    static func snapshots(_ receiver: LoopbackReceiver) -> [ReceivedRequest] {
        receiver.requests.filter { $0.path == "/v1/snapshots" }
    }

    static var screen: ScreenDescription {
        ScreenDescription(
            page: PageDescription(controllerType: "ViewController", instanceID: 1),
            screen: .init(width: 390, height: 844, scale: 3),
            elements: ScreenSnapshotCoreTests.articleElements)
    }

    @Test func snapshotsAreUploadedOnlyWhileASessionIsOpen() async throws {
        let status = LockedBox(201)
        let receiver = try LoopbackReceiver { request in
            HTTPResponse(status: request.path == "/v1/snapshots" ? status.current : 200)
        }
        let tracker = Tracker(configuration: configuration(receiver))
        let capture = tracker.makeAutoCapture()
        let content = capture.snapshotContent(of: Self.screen)
        tracker.connectSession.setScreenSource { content }

        // No session: a page appearance and an explicit request send nothing.
        capture.pageAppeared(Self.screen.page!)
        tracker.captureScreen()
        #expect(!tracker.connectSession.isActive)
        #expect(tracker.connectSession.snapshotsSent == 0)
        #expect(!tracker.handle(url: URL(string: "shop://product/42")!))

        #expect(tracker.handle(url: Self.link))
        await waitUntil("the first snapshot") { Self.snapshots(receiver).count == 1 }
        let first = try #require(Self.snapshots(receiver).first)
        #expect(first.method == "POST")
        #expect(first.headers["authorization"] == "Basic " + Data("key:".utf8).base64EncodedString())
        #expect(first.headers["footprint-connect-token"] == Self.token)
        #expect(first.headers["content-type"] == "application/json")
        let snapshot = try ScreenSnapshot(jsonBytes: first.body)
        #expect(snapshot.connectToken == Self.token)
        #expect(snapshot.trigger == .pageAppear)
        #expect(snapshot.page == "ViewController")
        #expect(snapshot.elements == content.elements)
        #expect(snapshot.screen == content.screen)
        #expect(snapshot.anonymousID == tracker.identity()?.anonymousId)
        #expect(
            snapshot.appVersion == "2.1" && snapshot.build == "210" && snapshot.deviceModel == "iPhone15,2")
        #expect(snapshot.takenAt == clock.now())
        #expect(UUIDv7.timestamp(of: snapshot.snapshotID) == clock.now())

        capture.pageAppeared(Self.screen.page!)
        await waitUntil("the page's snapshot") { Self.snapshots(receiver).count == 2 }
        tracker.captureScreen()
        await waitUntil("the requested snapshot") { Self.snapshots(receiver).count == 3 }
        let triggers = try Self.snapshots(receiver).map { try ScreenSnapshot(jsonBytes: $0.body).trigger }
        #expect(triggers == [.pageAppear, .pageAppear, .onDemand])

        // The server ends the session: nothing more is sent.
        status.withLock { $0 = 410 }
        tracker.captureScreen()
        await waitUntil("the end of the session") {
            tracker.connectSession.endReason == .endedByServer(status: 410)
        }
        #expect(!tracker.connectSession.isActive)
        capture.pageAppeared(Self.screen.page!)
        tracker.captureScreen()
        await tracker.flushAndWait()
        #expect(Self.snapshots(receiver).count == 4)
        #expect(tracker.connectSession.snapshotsSent == 4)

        // The link's token is never recorded as a deep link.
        let batches = receiver.requests.filter { $0.path == "/v1/batch" }
        #expect(!batches.isEmpty)
        #expect(!batches.contains { String(decoding: $0.body, as: UTF8.self).contains(Self.token) })
    }

    @Test func aLinkMadeForAnotherServerStartsNothing() throws {
        let receiver = try LoopbackReceiver { _ in HTTPResponse(status: 201) }
        let tracker = Tracker(configuration: configuration(receiver))
        let url = URL(
            string: "shop://footprint/connect?token=\(Self.token)&server=https%3A%2F%2Fother.example.com")!
        #expect(!tracker.handle(url: url))
        #expect(!tracker.connectSession.isActive)
        #expect(tracker.connectSession.snapshotsSent == 0)
    }

    @Test func aConnectLinkAtLaunchStartsASessionAndIsNotRecorded() throws {
        let receiver = try LoopbackReceiver { _ in HTTPResponse(status: 201) }
        var configuration = configuration(receiver)
        configuration.connectSession.maximumDurationSeconds = 60
        let tracker = Tracker(configuration: configuration)
        tracker.applicationDidFinishLaunching(AppOpening(url: Self.link.absoluteString))
        #expect(tracker.connectSession.isActive)
        #expect(tracker.waitUntilStored())
        let database = try SQLiteDatabase(path: directory.path + "/queue.sqlite")
        let stored = try database.prepare("SELECT body FROM events ORDER BY id").rows {
            try JSONParser().parse($0.blob(at: 0))
        }
        let opened = try #require(stored.first { $0["event"] == "Application Opened" })
        #expect(opened["properties"]?["url"] == nil)
        #expect(!stored.contains { $0.description.contains(Self.token) })
        clock.advance(milliseconds: 60_000)
        #expect(!tracker.connectSession.isActive)
    }
}
