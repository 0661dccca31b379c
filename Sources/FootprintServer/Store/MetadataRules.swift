import FootprintWire

/// The decisions every metadata store makes the same way, whatever keeps the rows (SQLite,
/// PostgreSQL): pure functions of what the store read, so that both stores answer alike.
enum MetadataRules {
    /// The longest project name, in bytes.
    static let maximumProjectNameBytes = 128

    /// A new project's name: trimmed of spaces, 1 to 128 bytes.
    /// - Throws: ``ServerError`` `project` otherwise.
    static func projectName(_ name: String) throws(ServerError) -> String {
        let trimmed = name.trimmingSpaces
        guard !trimmed.isEmpty, trimmed.utf8.count <= maximumProjectNameBytes else {
            throw ServerError(code: .project, message: "a project name must have 1 to 128 characters")
        }
        return trimmed
    }

    /// The error for a name another project has.
    static func projectNameTaken(_ name: String) -> ServerError {
        ServerError(code: .project, message: "a project named \(name) already exists")
    }

    /// The error for a project id that names no project.
    static func noProject(_ id: Int64) -> ServerError {
        ServerError(code: .project, message: "no project with id \(id)")
    }

    /// The error that refuses revoking `key` when its project holds `remaining` keys (itself
    /// included), `nil` when it may go: a project keeps at least one key, so that its apps can
    /// be given its successor first.
    static func lastWriteKeyRefusal(_ key: String, remaining: Int64) -> ServerError? {
        guard remaining <= 1 else { return nil }
        return ServerError(
            code: .project,
            message:
                "\(key) is its project's only write key; create its successor first (footprint keys create)")
    }

    /// A connect session's lifetime in milliseconds: `seconds` clamped to 1 s…366 days.
    static func connectSessionLifetimeMilliseconds(_ seconds: Int64) -> Int64 {
        max(1, min(seconds, 366 * 86_400)) * 1000
    }

    /// The error that refuses a new connect session when `open` are open, `nil` when one more fits.
    static func connectSessionRefusal(open: Int64, limits: ConnectSession.Limits) -> ServerError? {
        let most = max(1, limits.maximumOpenPerProject)
        guard open >= most else { return nil }
        return ServerError(
            code: .tooManyConnectSessions,
            message:
                "\(open) connect sessions of this project are open (at most \(most)); end one or wait for one to expire"
        )
    }

    /// The snapshots to delete once `kept` is stored: those past the session's bound (`sessionOverflow`,
    /// the session's oldest beyond ``SnapshotRetention/perSession``), then the project's
    /// `candidates` in the order given (oldest first, the newest of each page and app version
    /// last) while the project holds more than ``SnapshotRetention/perProject`` snapshots or
    /// ``SnapshotRetention/bytesPerProject`` bytes.
    static func doomedSnapshots(
        sessionOverflow: [Int64], candidates: [(id: Int64, bytes: Int64)], keptBytes: Int64,
        retention: SnapshotRetention
    ) -> [Int64] {
        var doomed = sessionOverflow
        let sessionDoomed = Set(sessionOverflow)
        let remaining = candidates.filter { !sessionDoomed.contains($0.id) }
        var count = remaining.count + 1
        var bytes = remaining.reduce(keptBytes) { $0.saturatingAdd($1.bytes) }
        for candidate in remaining {
            guard count > max(1, retention.perProject) || bytes > Int64(max(0, retention.bytesPerProject))
            else { break }
            doomed.append(candidate.id)
            count -= 1
            bytes = bytes.saturatingSubtract(candidate.bytes)
        }
        return doomed
    }

    /// Each project with a retention (its own days from `ownDays`, else `defaultDays`) and the
    /// first day it keeps as of `now`: the UTC day `days` (at most 36,500) before `now`'s.
    static func retentionHorizons(
        projects: [Project], defaultDays: Int?, now: Timestamp,
        ownDays: (Int64) throws(ServerError) -> Int?
    ) throws(ServerError) -> [(project: Project, day: Int64)] {
        var horizons: [(project: Project, day: Int64)] = []
        for project in projects {
            guard let days = try ownDays(project.id) ?? defaultDays, days > 0 else { continue }
            horizons.append((project, now.dayNumber - Int64(min(days, 36_500))))
        }
        return horizons
    }

    /// A project's own retention in days must be 1 to 36,500 (or `nil`).
    static func checkRetentionDays(_ days: Int?) throws(ServerError) {
        if let days, !(1...36_500).contains(days) {
            throw ServerError(code: .invalidQuery, message: "retention days must be 1 to 36500")
        }
    }

    /// The ids a person's deletion refuses: every id of the person, and the one asked for.
    static func refusedIds(_ selection: PersonSelection, id: String) -> Set<String> {
        var refused = selection.allIds
        refused.insert(id)
        return refused
    }

    /// A snapshot as an export shows it: as the JSON API lists it, with its `document` parsed
    /// (kept as a string when it is not JSON).
    static func exportedSnapshot(_ summary: SnapshotSummary, document: String) -> JSONValue {
        var value = summary.jsonValue.objectValue ?? [:]
        value["document"] = (try? JSONParser().parse(Array(document.utf8))) ?? .string(document)
        return .object(value)
    }
}
