import FootprintServer
import FootprintWire
import Foundation

/// Screen snapshots as a device in a connect session would send them, built with the wire type.
enum SnapshotSamples {
    static let buy = ScreenSnapshot.Element(
        path: "#buy:#UIButton#Detail", similarPath: "#buy:#UIButton#Detail", kind: "button",
        frame: ScreenSnapshot.Frame(x: 20, y: 700, width: 350, height: 44), text: "Buy")
    static func row(_ index: Int) -> ScreenSnapshot.Element {
        ScreenSnapshot.Element(
            path: "#didSelectRow#Cell[0:\(index)]#List", similarPath: "#didSelectRow#Cell[0:*]#List",
            kind: "cell",
            frame: ScreenSnapshot.Frame(x: 0, y: Double(100 + 60 * index), width: 390, height: 60),
            text: "Row \(index)")
    }

    /// A PNG's signature followed by `size - 8` bytes: enough for the wire type's check.
    static func png(size: Int) -> [UInt8] {
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (0..<max(0, size - 8)).map { UInt8($0 % 251) }
    }

    static func snapshot(
        token: String, id: String = UUID().uuidString.lowercased(), anonymousId: String = "device-1",
        page: String = "Detail", appVersion: String = "2.0", elements: [ScreenSnapshot.Element] = [buy],
        image: ScreenSnapshot.Image? = nil,
        takenAt: Timestamp = Timestamp(iso8601: "2026-11-03T11:59:00.000Z")!
    ) -> ScreenSnapshot {
        ScreenSnapshot(
            connectToken: token, snapshotID: id, anonymousID: anonymousId, page: page, appVersion: appVersion,
            build: "45", osVersion: "17.4", deviceModel: "iPhone15,2",
            screen: ScreenSnapshot.Screen(width: 390, height: 844, scale: 3), takenAt: takenAt,
            trigger: .pageAppear, elements: elements, image: image)
    }

    /// A stored-snapshot record for store-level tests.
    static func record(
        projectId: Int64, sessionId: Int64, id: String = UUID().uuidString.lowercased(),
        page: String = "Detail",
        appVersion: String = "2.0", imageBytes: Int = 0, at time: Timestamp
    ) -> SnapshotRecord {
        SnapshotRecord(
            projectId: projectId, connectSessionId: sessionId, snapshotId: id, anonymousId: "device-1",
            userId: nil,
            page: page, appVersion: appVersion, takenAt: time, receivedAt: time, elementCount: 1,
            document: "{\"page\":\"\(page)\"}",
            image: imageBytes > 0
                ? SnapshotImage(format: "png", width: 10, height: 10, data: png(size: imageBytes)) : nil)
    }
}
