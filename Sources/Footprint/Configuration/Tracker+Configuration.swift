import Foundation

extension Tracker {
    /// Everything a ``Tracker`` is started with. Every field has a documented default except the
    /// write key and the server.
    public struct Configuration: Sendable {
        /// The project's write key, sent as the HTTP Basic user name.
        public var writeKey: String
        /// The server's base URL (`https://footprint.example.com`); batches go to `/v1/batch`.
        public var serverURL: String
        /// Upload when this many events are queued. Default 20.
        public var flushAt = 20
        /// Upload at least this often while events are queued, in seconds. Default 30.
        public var flushIntervalSeconds = 30.0
        /// The most events in one request. Default 100.
        public var maximumBatchCount = 100
        /// The most bytes of events in one request, before compression. Default 500 KB.
        public var maximumBatchBytes = 500 * 1024
        /// Compress request bodies with gzip. Default `true`.
        public var compressesRequests = true
        /// The folder holding the queue database. Default `nil`: `Footprint` in the app's
        /// Application Support folder (the home folder's `.footprint` where there is none).
        public var storageDirectory: String?
        /// The most events kept on the device; the oldest are evicted past it. Default 10,000.
        public var maximumQueuedEvents = 10_000
        /// The most bytes of events kept on the device; the oldest are evicted past it.
        /// Default 10 MB.
        public var maximumQueuedBytes = 10 * 1024 * 1024
        /// The most events accepted but not yet written to disk; past it new events are dropped
        /// and counted as evicted. Default 10,000.
        public var maximumPendingEvents = 10_000
        /// The most single events kept in the dead-letter table for inspection. Default 100.
        public var maximumDeadLetters = 100
        /// Inactivity, or a background stay, after which a new session starts, in seconds.
        /// Default 1,800 (30 minutes).
        public var sessionTimeoutSeconds = 1800.0
        /// The shortest retry delay after a failure, in seconds. Default 1.
        public var minimumRetryDelaySeconds = 1.0
        /// The longest retry delay after repeated failures, in seconds. Default 300 (5 minutes).
        public var maximumRetryDelaySeconds = 300.0
        /// The tracking plan bundled with the app (see `docs/TRACKING-PLAN.md`): which pages and
        /// events automatic capture names, and what it uploads. The server's remote config
        /// replaces it when one is published. Default: an empty plan (everything captured, all
        /// uploaded).
        public var plan = TrackingPlan()
        /// The shortest time between two remote-config requests (`GET /v1/config`), in seconds;
        /// the plan is fetched at start and on foreground when this much time has passed. `nil`
        /// never asks the server. Default 1,800 (30 minutes).
        public var remoteConfigRefreshSeconds: Double? = 1800
        /// Which lifecycle events the tracker records by itself (`Application Installed`,
        /// `Updated`, `Opened`, `Backgrounded`, `Deep Link Opened`). Default: all of them.
        public var lifecycleEvents = AppLifecycleEvents()
        /// Starts with collection off until the app calls ``Tracker/optIn()``: on a device
        /// where it never was, nothing is recorded and nothing is written (no queue, no
        /// identifiers). The choice is persisted; ``Tracker/optOut()`` still turns it off.
        /// Default `false` (recording until ``Tracker/optOut()``).
        public var requiresConsent = false
        /// Library, app, OS and device facts sent with every event. Default
        /// ``DeviceContext/current``.
        public var context = DeviceContext.current
        /// The pacing and lifetime of connect sessions (snapshots for the dashboard's Screens
        /// page, started only by a connect link). Default ``ConnectSession/Configuration/init()``:
        /// at most one snapshot a second, 10 minutes at most.
        public var connectSession = ConnectSession.Configuration()
        /// How requests reach the server. Default ``URLSessionTransport``.
        public var transport: any HTTPTransport = URLSessionTransport()
        /// Where time is read. Default ``SystemClock``.
        public var clock: any Clock = SystemClock()
        /// Receives everything the tracker does, for debugging screens and tests. Called on the
        /// tracker's own threads: must return fast. Default `nil`.
        public var observer: (@Sendable (TrackerActivity) -> Void)?
        /// Receives warnings for people (refused events, dead letters, rejected credentials).
        /// Default: printed to standard error.
        public var log: @Sendable (String) -> Void = { message in
            FileHandle.standardError.write(Data("[Footprint] \(message)\n".utf8))
        }

        /// Creates a configuration with the defaults above.
        /// - Parameters:
        ///   - writeKey: the project's write key.
        ///   - serverURL: the server's base URL.
        public init(writeKey: String, serverURL: String) {
            self.writeKey = writeKey
            self.serverURL = serverURL
        }
    }
}

extension Tracker.Configuration {
    /// The folder the queue lives in: ``storageDirectory`` or the platform default.
    var resolvedStorageDirectory: String {
        if let storageDirectory { return storageDirectory }
        if let support = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)
            .first
        {
            return support.appendingPathComponent("Footprint").path
        }
        return NSHomeDirectory() + "/.footprint"
    }

    /// The file holding the last good remote plan and its ETag.
    var remoteConfigCacheURL: URL {
        URL(fileURLWithPath: resolvedStorageDirectory).appendingPathComponent("remote-plan.json")
    }

    /// The URL batches are posted to.
    var batchURL: String { HTTPRequest.url("/v1/batch", on: serverURL) }
}
