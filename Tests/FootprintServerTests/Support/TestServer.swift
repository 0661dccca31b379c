import FootprintServer
import FootprintWire
import Foundation
import Testing

/// A real server on a free loopback port with a fresh database file, stopped and deleted by
/// ``shutDown()``.
final class TestServer {
    let server: AnalyticsServer
    let directory: String
    let client: LoopbackClient
    let writeKey: String

    init(configure: (inout AnalyticsServer.Configuration) -> Void = { _ in }) throws {
        directory =
            NSTemporaryDirectory() + "footprint-test-\(UUIDv7.make(at: Timestamp(millisecondsSince1970: 0)))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var configuration = AnalyticsServer.Configuration(databasePath: directory + "/events.sqlite")
        configuration.store.synchronous = "NORMAL"
        configure(&configuration)
        server = try AnalyticsServer(configuration: configuration)
        client = LoopbackClient(port: server.port)
        writeKey = server.defaultProject!.writeKey
    }

    var projectId: Int64 { server.defaultProject!.id }

    func storedCount() throws -> Int {
        try server.stores.events.eventCount(projectId: projectId)
    }

    /// Stops the server and deletes the database; records an issue when a finished request is
    /// still counted as in flight (stop() would then wait for it).
    func shutDown(sourceLocation: SourceLocation = #_sourceLocation) {
        // A hang guard, generous for a busy machine: a finished request leaves the count at once.
        let deadline = Date().addingTimeInterval(10)
        while server.requestsInFlight > 0, Date() < deadline { usleep(1000) }
        #expect(
            server.requestsInFlight == 0, "requests still counted in flight", sourceLocation: sourceLocation)
        server.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// Sample payloads.
enum Payloads {
    static func track(_ messageId: String, event: String = "Product Viewed", anonymousId: String = "anon-1")
        -> String
    {
        """
        {"type":"track","messageId":"\(messageId)","anonymousId":"\(anonymousId)","event":"\(event)",\
        "timestamp":"2026-11-29T10:00:00.000Z","properties":{"sku":"A-1"}}
        """
    }

    static func batch(_ messages: [String], sentAt: String = "2026-11-29T10:00:05.000Z", extra: String = "")
        -> String
    {
        "{\"batch\":[\(messages.joined(separator: ","))],\"sentAt\":\"\(sentAt)\"\(extra)}"
    }
}
