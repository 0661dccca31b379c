/// A group's rows as a collector's spool keeps them (one record per group, ``SpoolFrame``), and
/// as the writer inserts them without a spool: the events' `RowBinary` rows one after another,
/// with what shipping needs of each (its ids, for the deleted-id refusal and the copy check, and
/// its sequence), the identity links' rows with their ids, and the evicted-event counts' rows.
///
/// The payload is itself written with ``ClickHouseRowBinary``'s encodings: the events' count
/// (varint), then each event's project (`Int64`), time received (`Int64` ms), device
/// (`String`), user id (`Nullable(String)`), message id (`String`), sequence (`UInt64`) and
/// row length (varint), then the events' rows (`String`); the links' count, each link's
/// project, time received, anonymous id, user id and row length, and their rows; the evicted
/// counts' rows (varint) and their bytes (`String`).
struct SpoolRecord: Sendable, Equatable {
    /// An event's ids and the length of its row.
    struct Event: Sendable, Equatable {
        var project: Int64
        /// When its batch was received, ms since 1970 (refusals are as of then).
        var receivedAt: Int64
        var userId: String?
        /// Its device, message id and sequence, as stored.
        var copy: ClickHouseEventStore.StoredCopy
        /// The bytes of its row in ``SpoolRecord/eventRows``.
        var rowBytes: Int
    }

    /// An identity link's ids and the length of its row.
    struct Link: Sendable, Equatable {
        var project: Int64
        var receivedAt: Int64
        var anonymousId: String
        var userId: String
        /// The bytes of its row in ``SpoolRecord/linkRows``.
        var rowBytes: Int
    }

    /// The events, in the order of their rows.
    var events: [Event] = []
    /// The group's mark (``UnsettledInserts``): its first event's sequence, which each device's
    /// first event carries among its contributions.
    var mark: UInt64? { events.first?.copy.sequence }
    /// The rows of ``ClickHouseSQL/eventColumns``, one per event.
    var eventRows = ClickHouseRowBinary()
    /// The identity links, in the order of their rows.
    var links: [Link] = []
    /// The rows `project_id, anonymous_id, user_id, first_seen`, one per link.
    var linkRows = ClickHouseRowBinary()
    /// Rows of evicted-event counts (``ClickHouseRows/appendLostEvents(of:keep:to:)``).
    var lostRows = ClickHouseRowBinary()
    /// How many rows `lostRows` holds.
    var lostCount = 0

    /// Creates an empty record with room for `eventBytes` bytes of event rows.
    init(eventBytes: Int = 0) {
        eventRows = ClickHouseRowBinary(capacity: eventBytes)
    }

    /// The rows this record adds to its segment.
    var rows: Int { events.count + links.count + lostCount }

    /// Appends an event whose row `append` writes.
    mutating func appendEvent(
        project: Int64, receivedAt: Int64, userId: String?, copy: ClickHouseEventStore.StoredCopy,
        row append: (inout ClickHouseRowBinary) -> Void
    ) {
        let rowBytes = Self.length(of: append, in: &eventRows)
        events.append(
            Event(project: project, receivedAt: receivedAt, userId: userId, copy: copy, rowBytes: rowBytes))
    }

    /// Appends an identity link whose row `append` writes.
    mutating func appendLink(
        project: Int64, receivedAt: Int64, anonymousId: String, userId: String,
        row append: (inout ClickHouseRowBinary) -> Void
    ) {
        let rowBytes = Self.length(of: append, in: &linkRows)
        links.append(
            Link(
                project: project, receivedAt: receivedAt, anonymousId: anonymousId, userId: userId,
                rowBytes: rowBytes))
    }

    /// The bytes `append` adds to `rows`.
    private static func length(
        of append: (inout ClickHouseRowBinary) -> Void, in rows: inout ClickHouseRowBinary
    ) -> Int {
        let before = rows.bytes.count
        append(&rows)
        return rows.bytes.count - before
    }

    /// Each event with the range of its row in ``eventRows``.
    var eventsWithRows: [(event: Event, row: Range<Int>)] {
        Self.ranges(events, of: \.rowBytes).map { ($0.0, $0.1) }
    }

    /// Each link with the range of its row in ``linkRows``.
    var linksWithRows: [(link: Link, row: Range<Int>)] {
        Self.ranges(links, of: \.rowBytes).map { ($0.0, $0.1) }
    }

    private static func ranges<Item>(_ items: [Item], of length: KeyPath<Item, Int>) -> [(Item, Range<Int>)] {
        var start = 0
        return items.map { item in
            defer { start += item[keyPath: length] }
            return (item, start..<start + item[keyPath: length])
        }
    }

    /// The payload's bytes.
    var encoded: [UInt8] {
        var out = ClickHouseRowBinary(capacity: eventRows.bytes.count + events.count * 96 + 64)
        out.appendVarint(UInt64(events.count))
        for event in events {
            out.append(event.project)
            out.append(event.receivedAt)
            out.append(event.copy.device)
            out.append(event.userId)
            out.append(event.copy.messageId)
            out.append(event.copy.sequence)
            out.appendVarint(UInt64(event.rowBytes))
        }
        out.appendBytes(eventRows.bytes)
        out.appendVarint(UInt64(links.count))
        for link in links {
            out.append(link.project)
            out.append(link.receivedAt)
            out.append(link.anonymousId)
            out.append(link.userId)
            out.appendVarint(UInt64(link.rowBytes))
        }
        out.appendBytes(linkRows.bytes)
        out.appendVarint(UInt64(lostCount))
        out.appendBytes(lostRows.bytes)
        return out.bytes
    }

    /// Decodes a payload ``encoded`` wrote.
    /// - Throws: ``ServerError`` `storage` when it is not one (a record whose checksum matched
    ///   but whose contents do not: a bug, never a torn write).
    init(decoding payload: [UInt8]) throws(ServerError) {
        var reader = Reader(input: payload)
        for _ in 0..<(try reader.count()) {
            let project = try reader.int64()
            let receivedAt = try reader.int64()
            let device = try reader.string()
            let userId = try reader.optionalString()
            let messageId = try reader.string()
            let sequence = try reader.uint64()
            events.append(
                Event(
                    project: project, receivedAt: receivedAt, userId: userId,
                    copy: .init(device: device, messageId: messageId, sequence: sequence),
                    rowBytes: try reader.count()))
        }
        eventRows.appendRaw(try reader.bytes())
        for _ in 0..<(try reader.count()) {
            links.append(
                Link(
                    project: try reader.int64(), receivedAt: try reader.int64(),
                    anonymousId: try reader.string(), userId: try reader.string(),
                    rowBytes: try reader.count()))
        }
        linkRows.appendRaw(try reader.bytes())
        lostCount = try reader.count()
        lostRows.appendRaw(try reader.bytes())
        guard reader.isAtEnd, events.reduce(0, { $0 + $1.rowBytes }) == eventRows.bytes.count,
            links.reduce(0, { $0 + $1.rowBytes }) == linkRows.bytes.count
        else { throw Reader.damaged }
    }

    /// Reads the encodings ``encoded`` writes.
    private struct Reader {
        let input: [UInt8]
        var offset = 0

        static var damaged: ServerError {
            ServerError(code: .storage, message: "a spool record does not decode")
        }

        var isAtEnd: Bool { offset == input.count }

        mutating func varint() throws(ServerError) -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                guard offset < input.count, shift < 64 else { throw Self.damaged }
                let byte = input[offset]
                offset += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
            }
        }

        mutating func count() throws(ServerError) -> Int {
            let value = try varint()
            guard value <= UInt64(input.count) else { throw Self.damaged }
            return Int(value)
        }

        mutating func uint64() throws(ServerError) -> UInt64 {
            guard input.count - offset >= 8 else { throw Self.damaged }
            let value = (0..<8).reduce(UInt64(0)) { $0 | UInt64(input[offset + $1]) << (8 * UInt64($1)) }
            offset += 8
            return value
        }

        mutating func int64() throws(ServerError) -> Int64 {
            Int64(bitPattern: try uint64())
        }

        mutating func bytes() throws(ServerError) -> [UInt8] {
            let length = try count()
            guard input.count - offset >= length else { throw Self.damaged }
            defer { offset += length }
            return Array(input[offset..<offset + length])
        }

        mutating func string() throws(ServerError) -> String {
            String(decoding: try bytes(), as: UTF8.self)
        }

        mutating func optionalString() throws(ServerError) -> String? {
            guard offset < input.count else { throw Self.damaged }
            offset += 1
            return input[offset - 1] == 1 ? nil : try string()
        }
    }
}
