import Foundation

/// Exposure and skip events on the wire.
///
/// **One event per item**, for exposures and skips alike. Each item's event is a plain `track`
/// message with `$item_id`, so the server counts exposures, skips and `$element_click`s per item
/// with the same `GROUP BY $item_id`, joins them for the exposure→click rate, and dedupes them
/// by `messageId` like any event; each carries its own business properties (price, category)
/// and stays a few hundred bytes, far under the 32 KB limit, whatever the list length. A fling's
/// skip events share `$fling_id`, direction and times, so the fling can be rebuilt; gzip on the
/// batch absorbs the repetition. A list-carrying event would have to be split at 32 KB and
/// unnested on the server, and one bad item would lose its neighbours.
///
/// `$item_exposure`:
/// ```json
/// {"$item_id": "sku-42", "$item_position": "0:7", "$page_name": "Feed", "$list_id": "feed",
///  "$exposure_trigger": "rest", "$visible_ratio": 1.0, "$dwell_ms": 0, "price": 19.9}
/// ```
/// `$item_skip`:
/// ```json
/// {"$item_id": "sku-57", "$item_position": "0:22", "$page_name": "Feed", "$list_id": "feed",
///  "$fling_id": "0193…", "$direction": "forward", "$axis": "vertical",
///  "$fling_start": "2026-11-29T20:00:01.200Z", "$fling_end": "2026-11-29T20:00:03.050Z",
///  "duration_ms": 1850, "$fling_skipped_count": 14, "price": 5.5}
/// ```
extension ListExposureEvent {
    /// The `track` event name of an exposure.
    public static let exposureEventName = "$item_exposure"
    /// The `track` event name of a skipped item.
    public static let skipEventName = "$item_skip"

    /// The largest business-property payload kept on one event, in encoded bytes; larger ones are
    /// replaced by `"$properties_dropped": true` so the event stays under
    /// ``MessageLimits/maximumEventBytes`` with room for the context the tracker adds.
    public static let maximumBusinessPropertyBytes = MessageLimits.maximumEventBytes - 8 * 1024

    /// The captured events this decision becomes: one per item.
    /// - Parameters:
    ///   - pageName: the page the list is on (`$page_name`), when known.
    ///   - listId: which list of the page (`$list_id`), when a page has several.
    ///   - flingId: the id shared by a fling's skip events; the driver passes a UUIDv7.
    public func capturedEvents(pageName: String?, listId: String?, flingId: @autoclosure () -> String)
        -> [CapturedEvent]
    {
        switch self {
        case .exposure(let exposure):
            var properties = Self.itemProperties(exposure.item, pageName: pageName, listId: listId)
            properties["$exposure_trigger"] = .string(exposure.trigger.rawValue)
            properties["$visible_ratio"] = .double((exposure.visibleRatio * 1000).rounded() / 1000)
            properties["$dwell_ms"] = .int(exposure.dwellMilliseconds)
            return [CapturedEvent(kind: .track(event: Self.exposureEventName), properties: properties)]
        case .skip(let skip):
            var shared: JSONObject = [
                "$fling_id": .string(flingId()),
                "$direction": .string(skip.direction.rawValue),
                "$axis": .string(skip.axis.rawValue),
                "$fling_start": .string(skip.start.iso8601),
                "$fling_end": .string(skip.end.iso8601),
                "duration_ms": .int(skip.end.millisecondsSince1970 - skip.start.millisecondsSince1970),
                "$fling_skipped_count": .int(Int64(skip.skippedCount)),
            ]
            if let pageName { shared["$page_name"] = .string(pageName) }
            if let listId { shared["$list_id"] = .string(listId) }
            return skip.items.map { item in
                var properties = Self.itemProperties(item, pageName: nil, listId: nil)
                properties.merge(shared) { _, footprint in footprint }
                return CapturedEvent(kind: .track(event: Self.skipEventName), properties: properties)
            }
        }
    }

    /// The item's business properties, then Footprint's keys over them.
    private static func itemProperties(_ item: ListItem, pageName: String?, listId: String?) -> JSONObject {
        var properties: JSONObject = [:]
        if !item.properties.isEmpty {
            if JSONWriter.bytes(.object(item.properties)).count <= maximumBusinessPropertyBytes {
                properties = item.properties
            } else {
                properties["$properties_dropped"] = true
            }
        }
        properties["$item_id"] = .string(item.wireItemId)
        properties["$item_position"] = .string(item.indexPath.description)
        if let pageName { properties["$page_name"] = .string(pageName) }
        if let listId { properties["$list_id"] = .string(listId) }
        return properties
    }
}
