import FootprintWire

/// What deleting a person removed (``SQLiteEventStore/deletePerson(id:projectId:request:)``).
public struct PersonDeletion: Sendable, Hashable {
    /// The events removed.
    public var events: Int
    /// The identity links (identify, alias) removed.
    public var identityLinks: Int
    /// The ids (user id and anonymous ids) refused from now on.
    public var refusedIds: Int
    /// Until when events carrying one of those ids are refused (`deleted_person`).
    public var refusedUntil: Timestamp
    /// How long the deletion held the writer, in milliseconds (ingest waited at most this long).
    public var writerMilliseconds: Int64

    /// Creates a result.
    public init(
        events: Int, identityLinks: Int, refusedIds: Int, refusedUntil: Timestamp, writerMilliseconds: Int64
    ) {
        self.events = events
        self.identityLinks = identityLinks
        self.refusedIds = refusedIds
        self.refusedUntil = refusedUntil
        self.writerMilliseconds = writerMilliseconds
    }

    /// Who asked for a deletion, when, and how long later events of the person are refused.
    public struct Request: Sendable, Hashable {
        /// Who asked: `admin-token` (the HTTP API) or `cli` (`footprint people delete`).
        public var requestedBy: String
        /// When.
        public var at: Timestamp
        /// How long events carrying a deleted id are refused, in days. Default 30.
        public var refuseForDays: Int = 30

        /// Until when the deleted person's ids are refused: ``refuseForDays`` (held within 0 to
        /// 3,650) after ``at``.
        public var refusedUntil: Timestamp {
            at.adding(milliseconds: Int64(max(0, min(refuseForDays, 3_650))) * 86_400_000)
        }

        /// Creates a request.
        public init(requestedBy: String, at: Timestamp, refuseForDays: Int = 30) {
            self.requestedBy = requestedBy
            self.at = at
            self.refuseForDays = refuseForDays
        }
    }

    /// The answer's JSON (HTTP API and `footprint people delete`).
    public var jsonValue: JSONValue {
        [
            "events": .int(Int64(events)), "identityLinks": .int(Int64(identityLinks)),
            "refusedIds": .int(Int64(refusedIds)), "refusedUntil": .string(refusedUntil.iso8601),
            "writerMilliseconds": .int(writerMilliseconds),
        ]
    }
}

/// Everything stored about one person (``SQLiteEventStore/exportPerson(id:projectId:)``), for an
/// access request.
public struct PersonExport: Sendable, Hashable {
    /// The person (a user id, or an anonymous id without a link).
    public var person: String
    /// Each stored event: when it was received and the message as stored.
    public var events: [JSONValue]
    /// Each identity link: `anonymousId`, `userId`, `firstSeen`.
    public var identityLinks: [JSONValue]

    /// The export as JSON.
    public var jsonValue: JSONValue {
        ["person": .string(person), "events": .array(events), "identityLinks": .array(identityLinks)]
    }
}
