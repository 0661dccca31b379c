import FootprintServer

/// What `footprint demo` plays. Every field has a default that runs in well under a minute on
/// two cores.
public struct DemoConfiguration: Sendable {
    /// How many virtual users. Default 300.
    public var users = 300
    /// How many simulated days. Default 7.
    public var days = 7
    /// The seed of every random choice: the same seed plays the same demo. Default 2026.
    public var seed: UInt64 = 2026
    /// The first simulated day, in days since 1970-01-01 (UTC). Default 20,780 (2026-11-23, a
    /// Monday).
    public var firstDay: Int64 = 20_780
    /// The folder for the server's database and the devices' queues. Default `nil`: a new
    /// temporary folder, deleted by ``DemoOutcome/shutDown()``.
    public var directory: String?
    /// Where the demo's server keeps its events: `nil` (the default) in the SQLite file of
    /// ``directory``; a location to keep them in a ClickHouse cluster (projects and keys stay in
    /// that file). Use a database of its own for each run.
    public var clickHouse: ClickHouseLocation?
    /// How long one user's delivery (or one snapshot's upload) may take before the demo gives
    /// up with a `delivery` error: a guard against a server that never answers, not a speed
    /// target (a loaded machine or a cluster can take seconds). Default 300.
    public var deliveryTimeoutSeconds: Double = 300

    /// Creates the default configuration.
    public init() {}
}
