import FootprintWire

/// What a database file is: a store that keeps its own events, or the metadata file of a
/// ClickHouse store (projects, keys, config, definitions and tokens; the events in ClickHouse).
///
/// A file becomes a ClickHouse store's when the store opens it for writing (`footprint serve
/// --store` or `footprint migrate`), and says so ever after: a SQLite server on it is refused
/// (``requireOwnEvents()``), since the events it took would be apart from the store's.
extension SQLiteEventStore {
    /// The ClickHouse store (its URL without the password) this file is the metadata file of,
    /// the one recorded last; `nil` for a file that keeps its own events.
    public func eventStoreLocation() throws(ServerError) -> String? {
        try read { database in
            try database.prepare(
                "SELECT key FROM store_state WHERE substr(key, 1, ?2) = ?1 ORDER BY value DESC, key LIMIT 1"
            ).rows([.text(Self.eventStorePrefix), .integer(Int64(Self.eventStorePrefix.utf8.count))]) { row in
                String((row.text(at: 0) ?? "").dropFirst(Self.eventStorePrefix.count))
            }.first
        }
    }

    /// Records that this file's events are kept at `location` from now on.
    public func recordEventStore(_ location: ClickHouseLocation, at time: Timestamp) throws(ServerError) {
        try requireWriter().perform { database in
            try database.prepare(
                "INSERT INTO store_state(key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value"
            ).run([.text(Self.eventStorePrefix + location.description), .integer(time.millisecondsSince1970)])
        }
    }

    /// Opens the file at `path` as the store of its own events: a ClickHouse store's metadata
    /// file is closed again and refused, naming the store (``requireOwnEvents()``).
    public static func openingOwnEvents(path: String, configuration: Configuration) throws(ServerError)
        -> SQLiteEventStore
    {
        let file = try SQLiteEventStore(path: path, configuration: configuration)
        do {
            try file.requireOwnEvents()
        } catch {
            file.close()
            throw error
        }
        return file
    }

    /// Refuses a file whose events are in a ClickHouse store, naming the store.
    /// - Throws: ``ServerError`` `store_in_use`.
    public func requireOwnEvents() throws(ServerError) {
        guard let location = try eventStoreLocation() else { return }
        throw ServerError(
            code: .storeInUse,
            message:
                "\(path) is the metadata file of the ClickHouse store \(location) (its events are there, "
                + "since footprint migrate or serve --store); name that store: --store '\(location)'")
    }

    /// The `store_state` keys that record a ClickHouse store, the location following.
    private static let eventStorePrefix = "events_in "
}
