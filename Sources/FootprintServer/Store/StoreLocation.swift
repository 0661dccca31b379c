import Foundation

/// Where a store is, written the same way by every command: a SQLite file as `PATH` or
/// `sqlite:PATH`, ClickHouse as `clickhouse://…` (``ClickHouseLocation``), or PostgreSQL, which
/// keeps only metadata, as `postgres://USER[:PASSWORD]@HOST:PORT/DATABASE` (``PostgresLocation``).
///
/// `footprint serve --db`, `report --db`, `migrate --from`, `backup --db` and the other commands'
/// `--db` take a SQLite file in either spelling; `--store` and `migrate --to` take either kind.
public enum StoreLocation: Sendable, Hashable, CustomStringConvertible {
    /// A SQLite database file.
    case sqlite(path: String)
    /// A ClickHouse store.
    case clickHouse(ClickHouseLocation)
    /// A PostgreSQL database keeping a deployment's metadata (its events in ClickHouse).
    case postgres(PostgresLocation)

    /// The prefix that names a SQLite file.
    public static let sqlitePrefix = "sqlite:"

    /// Reads a store location.
    /// - Parameters:
    ///   - text: `PATH`, `sqlite:PATH` (`sqlite://PATH` too), `clickhouse://…` or `postgres://…`.
    ///   - environment: where ClickHouse's and PostgreSQL's users and passwords may come from
    ///     (``ClickHouseLocation/init(url:environment:)``, ``PostgresLocation/init(url:environment:)``).
    ///     Default: none.
    /// - Throws: ``ServerError`` `invalid_store`: an empty path, another URL scheme, or a
    ///   ClickHouse or PostgreSQL URL that is not valid (naming what is wrong).
    public init(_ text: String, environment: [String: String] = [:]) throws(ServerError) {
        if ClickHouseLocation.isURL(text) {
            self = .clickHouse(try ClickHouseLocation(url: text, environment: environment))
            return
        }
        if PostgresLocation.isURL(text) {
            self = .postgres(try PostgresLocation(url: text, environment: environment))
            return
        }
        var path = Substring(text)
        if text.lowercased().hasPrefix(Self.sqlitePrefix) {
            path = path.dropFirst(Self.sqlitePrefix.count)
            if path.hasPrefix("//") { path = path.dropFirst(2) }
        } else if let scheme = Self.scheme(of: text) {
            throw ServerError(
                code: .invalidStore,
                message:
                    "\(scheme):// is not a store; give a SQLite file (PATH or sqlite:PATH), clickhouse://HOST:PORT/DATABASE or postgres://USER@HOST:PORT/DATABASE"
            )
        }
        guard !path.isEmpty else {
            throw ServerError(code: .invalidStore, message: "the SQLite store names no file (sqlite:PATH)")
        }
        self = .sqlite(path: String(path))
    }

    /// The SQLite file, `nil` for ClickHouse.
    public var sqlitePath: String? {
        if case .sqlite(let path) = self { return path }
        return nil
    }

    /// The ClickHouse location, `nil` for another store.
    public var clickHouse: ClickHouseLocation? {
        if case .clickHouse(let location) = self { return location }
        return nil
    }

    /// The PostgreSQL location, `nil` for another store.
    public var postgres: PostgresLocation? {
        if case .postgres(let location) = self { return location }
        return nil
    }

    /// `sqlite:PATH`, or the ClickHouse or PostgreSQL URL without its password.
    public var description: String {
        switch self {
        case .sqlite(let path): Self.sqlitePrefix + path
        case .clickHouse(let location): location.description
        case .postgres(let location): location.description
        }
    }

    /// The scheme of a `SCHEME://…` text (letters, digits, `+`, `-`, `.` after a letter), else `nil`.
    private static func scheme(of text: String) -> String? {
        guard let range = text.range(of: "://") else { return nil }
        let scheme = text[..<range.lowerBound]
        guard let first = scheme.first, first.isLetter,
            scheme.allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) })
        else { return nil }
        return String(scheme)
    }
}
