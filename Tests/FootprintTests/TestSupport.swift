import Foundation
import Testing

@testable import Footprint

/// A fresh folder under the system's temporary folder, removed when released.
final class ScratchFolder: Sendable {
    let path: String

    init() {
        path = NSTemporaryDirectory() + "footprint-tests-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// A value shared between a test and the callbacks it installs.
final class LockedBox<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    var current: Value { withLock { $0 } }
}

/// Waits (polling) until `condition` holds or `timeoutSeconds` pass; records an issue on timeout.
/// The time-out is a hang guard, not a speed check: a busy machine can hold a test's task off its
/// thread for minutes.
@discardableResult
func waitUntil(
    timeoutSeconds: Double = 300, _ what: String = "condition",
    sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool
) async -> Bool {
    let deadline = Date().addingTimeInterval(timeoutSeconds)
    while !condition() {
        if Date() > deadline {
            Issue.record("timed out waiting for \(what)", sourceLocation: sourceLocation)
            return false
        }
        try? await Task.sleep(nanoseconds: 5_000_000)
    }
    return true
}

extension Tracker {
    /// Flushes and waits for the flush to be over.
    func flushAndWait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            flush { continuation.resume() }
        }
    }
}

extension Tracker.Configuration {
    /// A tracker that sends to a loopback receiver at `serverURL`: its queue in `directory`, no
    /// remote config, uploads only when flushed, a one-minute transport time-out, no log.
    static func sending(to serverURL: String, storedIn directory: ScratchFolder) -> Self {
        var configuration = Tracker.Configuration(writeKey: "key", serverURL: serverURL)
        configuration.storageDirectory = directory.path
        configuration.remoteConfigRefreshSeconds = nil
        configuration.flushAt = 1_000_000
        configuration.flushIntervalSeconds = 3600
        configuration.transport = URLSessionTransport(timeoutSeconds: 60)
        configuration.log = { _ in }
        return configuration
    }
}
