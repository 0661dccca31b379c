import FootprintServer
import Foundation

/// What a demo run produced: the server, still running on the demo data, its report, the
/// demo's own tally and their comparison.
public struct DemoOutcome: Sendable {
    /// The embedded server, still listening.
    public let server: AnalyticsServer
    /// The folder holding the database and the devices' queues.
    public let directory: String
    /// Whether ``shutDown()`` deletes ``directory`` (it was a temporary folder).
    public let deletesDirectory: Bool
    /// The server's report of the demo project.
    public let report: Report
    /// What the demo asked for.
    public let tally: DemoTally
    /// The report checked against the tally.
    public let comparison: DemoComparison
    /// Wall-clock seconds from start to report.
    public let elapsedSeconds: Double

    /// Stops the server and deletes the temporary folder.
    public func shutDown() {
        server.stop()
        if deletesDirectory { try? FileManager.default.removeItem(atPath: directory) }
    }
}
