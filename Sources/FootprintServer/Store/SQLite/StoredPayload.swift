import FootprintSQLite
import FootprintWire

/// How `events.payload` holds an event's message (schema version 9 on): a BLOB of one format
/// byte (1) and the message's JSON raw-deflated against ``dictionary``, or, when that is not
/// smaller (or for rows stored before version 9), the JSON as TEXT. Readers take either.
///
/// A message is a few hundred bytes, too short for deflate to find much in it alone; most of
/// it (the keys, the context's shape, the SDK's property names) is the same in every message,
/// and the dictionary holds that, so it compresses to about a third.
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

    /// The value to store for a message's JSON.
    static func value(_ json: String) -> SQLiteValue {
        let bytes = Array(json.utf8)
        guard bytes.count <= maximumBytes, let compressed = codec.compress(bytes),
            compressed.count + 1 < bytes.count
        else { return .text(json) }
        return .blob([format] + compressed)
    }

    /// The JSON of a stored payload: TEXT as it is, a BLOB inflated.
    /// - Throws: `GzipError` when a BLOB is not a payload this code wrote (unknown format,
    ///   corrupt, inflating past ``maximumBytes``).
    static func json(_ row: SQLiteStatement, at index: Int32) throws(GzipError) -> String {
        guard row.isBlob(at: index) else { return row.text(at: index) ?? "" }
        return try json(stored: row.blob(at: index))
    }

    /// The JSON of a stored BLOB (see ``json(_:at:)``).
    static func json(stored: [UInt8]) throws(GzipError) -> String {
        guard stored.first == format else {
            throw GzipError(code: .corrupt, message: "not a stored payload (format \(stored.first ?? 0))")
        }
        return String(
            decoding: try codec.decompress(Array(stored.dropFirst()), limit: maximumBytes), as: UTF8.self)
    }
}
