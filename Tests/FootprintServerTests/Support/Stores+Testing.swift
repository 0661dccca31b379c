@testable import FootprintServer

extension Stores {
    /// The stores of a test's store of events: a SQLite file keeps its metadata itself, a
    /// ClickHouse store keeps it in its metadata file (and so does a view of it whose reads
    /// share their lookups).
    init(testing store: any EventStore) {
        if let clickHouse = store as? ClickHouseEventStore {
            self = clickHouse.stores
        } else if let view = store as? SharedLookupReads {
            self.init(metadata: view.store.metadata, events: view)
        } else if let file = store as? SQLiteEventStore {
            self.init(file)
        } else {
            preconditionFailure("a test store is SQLite or ClickHouse, not \(type(of: store))")
        }
    }
}
