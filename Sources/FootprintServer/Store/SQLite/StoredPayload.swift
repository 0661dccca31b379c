import FootprintSQLite
import FootprintWire
import Foundation

/// How `events.payload` holds an event's message. Readers take every form:
/// - format 2 (schema version 14 on): a BLOB of one format byte (2) and the message's JSON with
///   every value the row keeps in its own columns cut out (``Piece``: the ids, times, type, name,
///   session, page, element, app version, OS, duration), raw-deflated against
///   ``residualDictionary``. Reading puts the column values back, byte for byte: a cut is made
///   only where the column's value, written as JSON the one way ``Piece/write(_:into:)`` writes it,
///   is the text there, and the row's columns never change after the insert;
/// - format 1 (version 9 on): the whole JSON raw-deflated against ``dictionary``, when format 2
///   is not smaller;
/// - TEXT: the JSON as it is, when neither is smaller (or for rows stored before version 9).
///
/// ClickHouse's `payload` column holds format 3 (``cutFormat``): the same residual as format 2,
/// not deflated (ClickHouse compresses a column's values together, which finds more than one
/// message alone), read back with the same columns (``json(text:columns:)``); rows stored before
/// hold the JSON as it is.
///
/// A message is a few hundred bytes, too short for deflate to find much in it alone; most of
/// it (the keys, the context's shape, the SDK's property names) is the same in every message,
/// and the dictionary holds that, so it compresses to about a third. What is left is mostly the
/// values the columns hold already (a message id, a device id, a session id, two times), which
/// format 2 does not store twice.
enum StoredPayload {
    /// The first byte of a compressed payload; another dictionary would take another byte.
    static let format: UInt8 = 1

    /// The most bytes a stored payload inflates to: a message is at most
    /// `MessageLimits.maximumEventBytes`; larger JSON is stored as text.
    static let maximumBytes = 1 << 20

    /// What stored messages have in common, in the order `Message.jsonBytes` writes its keys
    /// (sorted), the commonest last. Part of format 1: never change it.
    static let dictionary = Array(
        """
        "$fling_skipped_count":"$fling_start":"$fling_end":"$fling_id":"$direction":"$axis":"vertical",\
        "$list_id":"$item_position":"$visible_ratio":"$exposure_trigger":"$dwell_ms":"$alert_title":\
        "$properties_dropped":"$trigger":"$event_id":"$event_name":"$title":"$referrer":"$plan_health",\
        "$item_skip","$item_exposure","$item_id":"$screen_leave","$screen","$element_click",\
        "identify","group","alias","groupId":"previousId":"traits":{"email":"name":\
        {"anonymousId":"00000000-0000-0000-0000-000000000000","context":{"app":{"build":"1","name":"",\
        "namespace":"com.","version":"1.0"},"device":{"manufacturer":"Apple","model":"iPhone","type":"ios"},\
        "library":{"name":"footprint-swift","version":"0.1.0"},"locale":"en-US","os":{"name":"iOS",\
        "version":"17.0"},"iPadOS","macOS","sessionId":"","timezone":"Europe/America/"},"event":"","messageId":"",\
        "name":"","properties":{"$element_path":"#UIButton#UIStackView[0]#UITableViewCell[0]#UITableView\
        #UICollectionViewCell[0]#UICollectionView#UIView[0]#ViewController","$element_position":"0:",\
        "$element_similar_path":"#UITableViewCell[*]#UICollectionViewCell[*]#","$element_text":"",\
        "$element_type":"UIButton","UITableViewCell","$page_name":"","$screen_class":"ViewController",\
        "duration_ms":},"sentAt":"2026-01-01T00:00:00.000Z","timestamp":"2026-01-01T00:00:00.000Z",\
        "type":"track","screen","userId":"
        """.utf8)

    private static let codec = DictionaryDeflate(dictionary: dictionary)

    /// The first byte of a payload stored in format 2: the message's JSON with the values the
    /// row keeps in its own columns cut out (``Piece``), raw-deflated against
    /// ``residualDictionary``.
    static let residualFormat: UInt8 = 2

    /// What the messages have in common once their columns are cut out (``Piece``): format 1's
    /// dictionary, then the shapes of the commonest messages with their cuts. Part of format 2:
    /// never change it.
    static let residualDictionary =
        dictionary
        + Array(
            """
            "$element_position":"0:","$element_type":"UITableViewCell","UICollectionViewCell",\
            "$referrer":"Home","$screen_class":"ViewController",\
            {\u{0}\u{2},"context":{"app":{\u{0}\u{10}},"os":{\u{0}\u{f}},\u{0}\u{9}},\u{0}\u{1},\u{0}\u{8},"properties":{\
            "$referrer":"Home"},\u{0}\u{5},\u{0}\u{4},\u{0}\u{6}}\
            {\u{0}\u{2},"context":{"app":{\u{0}\u{10}},"os":{\u{0}\u{f}},\u{0}\u{9}},\u{0}\u{7},\u{0}\u{1},"properties":{\
            \u{0}\u{b},"$element_position":"0:2",\u{0}\u{c},"$element_type":"UITableViewCell",\u{0}\u{e},\u{0}\u{a}},\
            \u{0}\u{4},\u{0}\u{6}}\
            {\u{0}\u{2},"context":{"app":{\u{0}\u{10}},"os":{\u{0}\u{f}},\u{0}\u{9}},\u{0}\u{7},\u{0}\u{1},"properties":{\
            \u{0}\u{a},"$screen_class":"ViewController",\u{0}\u{11}},\u{0}\u{4},\u{0}\u{6}}\
            {\u{0}\u{2},"context":{"app":{\u{0}\u{10}},"os":{\u{0}\u{f}},\u{0}\u{9}},\u{0}\u{7},\u{0}\u{1},"properties":{\
            \u{0}\u{e},\u{0}\u{a}},\u{0}\u{4},\u{0}\u{6}}
            """.utf8)

    private static let residualCodec = DictionaryDeflate(dictionary: residualDictionary)

    /// The first byte of a payload in format 3: format 2's residual as it is, not deflated, for
    /// a store that compresses its columns itself. Valid JSON never starts with this byte.
    static let cutFormat: UInt8 = 3

    /// The columns a stored payload is read with, from its own: `payload` and then the columns
    /// whose values format 2 cuts out of it (``Columns``). Every reader of `payload` selects
    /// these, in this order.
    static let columns = """
        payload, message_id, anonymous_id, user_id, \(SQLiteSchema.clientTimestamp), sent_at, type, name, \
        session_id, page, element_path, \(SQLiteSchema.similarPath), element_text, item_id, os, app_version, \
        duration_ms, plan_event
        """

    /// The values of an event's row that its payload repeats, in ``columns`` order after
    /// `payload`: what a format-2 payload is read against.
    struct Columns: Equatable {
        /// Their count.
        static let count: Int32 = 17
        /// The places of the integer ones (the client's times, the duration).
        static let integers: Set<Int32> = [3, 4, 15]

        var values: [SQLiteValue]

        /// Columns with these values, ``count`` of them in ``StoredPayload/columns`` order.
        init(values: [SQLiteValue]) {
            precondition(values.count == Int(Self.count), "a row has \(Self.count) such columns")
            self.values = values
        }

        /// The values `event`'s row stores (``GroupCommitWriter/insertValues(_:project:payload:)``).
        init(_ event: EventRecord) {
            values = [
                .text(event.messageId), .text(event.anonymousId), .text(event.userId),
                .integer(event.clientTimestamp.millisecondsSince1970),
                event.sentAt.map { .integer($0.millisecondsSince1970) } ?? .null, .text(event.type.rawValue),
                .text(event.name), .text(event.sessionId), .text(event.page), .text(event.elementPath),
                .text(event.similarPath ?? event.elementPath), .text(event.elementText), .text(event.itemId),
                .text(event.os),
                .text(event.appVersion), event.durationMilliseconds.map(SQLiteValue.integer) ?? .null,
                .text(event.planEventName),
            ]
        }

        /// The values of a row that selected ``StoredPayload/columns`` with `payload` at `first - 1`.
        init(_ row: SQLiteStatement, at first: Int32) {
            values = (first..<first + Self.count).map { index in
                if row.isNull(at: index) { return .null }
                return Self.integers.contains(index - first)
                    ? .integer(row.int64(at: index)) : .text(row.text(at: index))
            }
        }

        func text(_ index: Int) -> String? {
            if case .text(let text) = values[index] { text } else { nil }
        }

        func integer(_ index: Int) -> Int64? {
            if case .integer(let number) = values[index] { number } else { nil }
        }
    }

    /// A value format 2 cuts out of a message's JSON, as a key and its value, where the row's
    /// columns say what they are. The residual holds a zero byte and the piece's number in its
    /// place; JSON text never holds a zero byte. Part of format 2: append; never renumber.
    enum Piece: UInt8, CaseIterable {
        case messageId = 1, anonymousId, userId, timestamp, sentAt, type, event, name, sessionId, pageName
        case elementPath, similarPath, elementText, itemId, os, appVersion, duration, planEvent

        /// The order pieces are cut in: the OS (a name and a version) before a screen's name or
        /// the app's version could take half of it.
        static let cutOrder: [Piece] = [.os] + allCases.filter { $0 != .os }

        /// The pieces format 3 cuts, in ``cutOrder``: the ids and times, which differ in every
        /// message; the names, pages, paths and versions repeat from row to row, and ClickHouse
        /// compresses them nearly away without the cost of cutting them (docs/BENCHMARKS.md).
        static let textCuts: [Piece] = [.messageId, .anonymousId, .userId, .timestamp, .sentAt, .sessionId]

        /// Appends the piece's bytes for a row with `columns` to `output`; `false` (and nothing
        /// appended) when the row has none.
        func write(_ columns: Columns, into output: inout [UInt8]) -> Bool {
            func member(_ key: StaticString, _ value: String?) -> Bool {
                guard let value else { return false }
                output.append(UInt8(ascii: "\""))
                key.withUTF8Buffer { output.append(contentsOf: $0) }
                output.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
                JSONWriter.writeString(value, into: &output)
                return true
            }
            func time(_ index: Int) -> String? {
                columns.integer(index).map { Timestamp(millisecondsSince1970: $0).iso8601 }
            }
            switch self {
            case .messageId: return member("messageId", columns.text(0))
            case .anonymousId: return member("anonymousId", columns.text(1))
            case .userId: return member("userId", columns.text(2))
            case .timestamp: return member("timestamp", time(3))
            case .sentAt: return member("sentAt", time(4))
            case .type: return member("type", columns.text(5))
            case .event: return member("event", columns.text(6))
            case .name: return member("name", columns.text(6))
            case .sessionId: return member("sessionId", columns.text(7))
            case .pageName: return member("$page_name", columns.text(8))
            case .elementPath: return member("$element_path", columns.text(9))
            case .similarPath: return member("$element_similar_path", columns.text(10))
            case .elementText: return member("$element_text", columns.text(11))
            case .itemId: return member("$item_id", columns.text(12))
            case .os:
                // `EventRecord` joins `context.os`'s name and version with a space.
                guard let os = columns.text(13), let space = os.lastIndex(of: " ") else { return false }
                _ = member("name", String(os[..<space]))
                output.append(UInt8(ascii: ","))
                _ = member("version", String(os[os.index(after: space)...]))
                return true
            case .appVersion: return member("version", columns.text(14))
            case .duration:
                guard let duration = columns.integer(15) else { return false }
                output.append(contentsOf: "\"duration_ms\":\(duration)".utf8)
                return true
            case .planEvent: return member("$event_name", columns.text(16))
            }
        }
    }

    /// The value to store for an event's message.
    static func value(of event: EventRecord) -> SQLiteValue {
        value(event.payload, columns: Columns(event))
    }

    /// The value to store for a message's JSON in a row with `columns`: format 2 when its
    /// residual compresses, else format 1 when that compresses, else the text.
    static func value(_ json: String, columns: Columns) -> SQLiteValue {
        let bytes = Array(json.utf8)
        guard let residual = cutOut(of: bytes, columns: columns) else { return .text(json) }
        if residual.count < bytes.count, let compressed = residualCodec.compress(residual),
            compressed.count + 1 < bytes.count
        {
            return .blob([residualFormat] + compressed)
        }
        guard let compressed = codec.compress(bytes), compressed.count + 1 < bytes.count else {
            return .text(json)
        }
        return .blob([format] + compressed)
    }

    /// The text to store for an event's message in a store that compresses its columns itself:
    /// format 3 (``cutFormat`` and the residual) when that is shorter, else the JSON as it is.
    static func cutText(of event: EventRecord) -> String {
        cutText(event.payload, columns: Columns(event))
    }

    /// The text to store for a message's JSON in a row with `columns` (see ``cutText(of:)``).
    static func cutText(_ json: String, columns: Columns) -> String {
        let bytes = Array(json.utf8)
        guard let residual = cutOut(of: bytes, columns: columns, pieces: Piece.textCuts),
            residual.count + 1 < bytes.count
        else { return json }
        return String(decoding: [cutFormat] + residual, as: UTF8.self)
    }

    /// `json` with every piece `columns` hold cut out, each cut a zero byte and the piece's
    /// number; `nil` when it cannot be cut (longer than ``maximumBytes``, or holding a zero byte,
    /// which JSON text never does).
    ///
    /// The `pieces` are cut in their order, each at its first place in what the earlier cuts
    /// left: since no piece holds a zero byte, that is its first place in `json` that overlaps no
    /// earlier cut, so every place is found in `json` itself and the residual written once. Every
    /// piece starts with a quote: the places of the quotes are found once, and each piece is
    /// compared at those only.
    private static func cutOut(of json: [UInt8], columns: Columns, pieces: [Piece] = Piece.cutOrder)
        -> [UInt8]?
    {
        guard json.count <= maximumBytes else { return nil }
        var cuts: [(range: Range<Int>, piece: UInt8)] = []
        let quote = UInt8(ascii: "\"")
        let clean = json.withUnsafeBufferPointer { text -> Bool in
            var quotes: [Int] = []
            quotes.reserveCapacity(text.count / 8)
            for index in text.indices {
                if text[index] == quote {
                    quotes.append(index)
                } else if text[index] == 0 {
                    return false
                }
            }
            var needle: [UInt8] = []
            needle.reserveCapacity(256)
            for piece in pieces {
                needle.removeAll(keepingCapacity: true)
                guard piece.write(columns, into: &needle) else { continue }
                precondition(needle.count >= 2 && needle[0] == quote, "a piece starts with a quote")
                let found = needle.withUnsafeBufferPointer { needle in
                    quotes.first { start in
                        start + needle.count <= text.count && text[start + 1] == needle[1]
                            && memcmp(text.baseAddress! + start, needle.baseAddress!, needle.count) == 0
                            && !cuts.contains { $0.range.overlaps(start..<start + needle.count) }
                    }
                }
                if let found { cuts.append((found..<found + needle.count, piece.rawValue)) }
            }
            return true
        }
        guard clean else { return nil }
        cuts.sort { $0.range.lowerBound < $1.range.lowerBound }
        var residual: [UInt8] = []
        residual.reserveCapacity(json.count)
        var index = 0
        for cut in cuts {
            residual += json[index..<cut.range.lowerBound]
            residual += [0, cut.piece]
            index = cut.range.upperBound
        }
        residual += json[index...]
        return residual
    }

    /// The JSON of the payload a row selected with ``columns`` from `index` on: TEXT as it is,
    /// a BLOB inflated (and its cuts filled from the row's columns).
    /// - Throws: `GzipError` when a BLOB is not a payload this code wrote (unknown format,
    ///   corrupt, inflating past ``maximumBytes``, a cut the row has no value for).
    static func json(_ row: SQLiteStatement, at index: Int32) throws(GzipError) -> String {
        guard row.isBlob(at: index) else { return row.text(at: index) ?? "" }
        return try json(stored: row.blob(at: index), columns: Columns(row, at: index + 1))
    }

    /// The JSON of a stored BLOB in a row with `columns` (see ``json(_:at:)``).
    static func json(stored: [UInt8], columns: Columns) throws(GzipError) -> String {
        switch stored.first {
        case format:
            return String(
                decoding: try codec.decompress(Array(stored.dropFirst()), limit: maximumBytes), as: UTF8.self)
        case residualFormat:
            let residual = try residualCodec.decompress(Array(stored.dropFirst()), limit: maximumBytes)
            return String(decoding: try filled(residual, columns: columns), as: UTF8.self)
        case cutFormat:
            return String(decoding: try filled(Array(stored.dropFirst()), columns: columns), as: UTF8.self)
        default:
            throw GzipError(code: .corrupt, message: "not a stored payload (format \(stored.first ?? 0))")
        }
    }

    /// The JSON of a payload stored as text with `columns`: format 3 filled from the columns,
    /// anything else (the JSON of a row stored before format 3) as it is.
    static func json(text: String, columns: Columns) throws(GzipError) -> String {
        guard text.utf8.first == cutFormat else { return text }
        return try json(stored: Array(text.utf8), columns: columns)
    }

    /// `residual` with each cut replaced by its piece, at most ``maximumBytes`` long (what was
    /// cut was no longer).
    private static func filled(_ residual: [UInt8], columns: Columns) throws(GzipError) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(residual.count * 3)
        var index = 0
        while let zero = residual[index...].firstIndex(of: 0) {
            output.append(contentsOf: residual[index..<zero])
            guard zero + 1 < residual.count, let piece = Piece(rawValue: residual[zero + 1]),
                piece.write(columns, into: &output)
            else {
                throw GzipError(code: .corrupt, message: "a stored payload's cut has no value in its row")
            }
            guard output.count <= maximumBytes else {
                throw GzipError(code: .corrupt, message: "a stored payload fills past \(maximumBytes) bytes")
            }
            index = zero + 2
        }
        output.append(contentsOf: residual[index...])
        guard output.count <= maximumBytes else {
            throw GzipError(code: .corrupt, message: "a stored payload fills past \(maximumBytes) bytes")
        }
        return output
    }
}
