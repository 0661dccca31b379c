import FootprintWire

/// How element clicks are grouped.
public enum ElementGrouping: String, Sendable, Hashable, CaseIterable, Codable {
    /// By `$element_path`: one row per exact element (one cell row each).
    case exact
    /// By `$element_similar_path`: every row of a list together.
    case similar
}

extension ReportEngine {
    /// Track events by name, most frequent first.
    public func topEvents(limit: Int = 20) -> [EventStatistics] {
        var counts: [String: (count: Int, people: Set<String>)] = [:]
        for (index, event) in events.enumerated() where event.type == .track {
            guard let name = event.name else { continue }
            counts[name, default: (0, [])].count += 1
            counts[name, default: (0, [])].people.insert(people[index])
        }
        return counts.map {
            EventStatistics(event: $0.key, count: $0.value.count, uniqueVisitors: $0.value.people.count)
        }
        .sorted { ($0.count, $1.event) > ($1.count, $0.event) }.prefix(max(0, limit)).map { $0 }
    }

    /// Events each definition matches, most frequent first (definitions with none included).
    public func definedEvents(_ definitions: [EventDefinition]) -> [EventStatistics] {
        definitions.map { definition in
            var count = 0
            var matched = Set<String>()
            for (index, event) in events.enumerated() where definition.matches(event) {
                count += 1
                matched.insert(people[index])
            }
            return EventStatistics(event: definition.name, count: count, uniqueVisitors: matched.count)
        }.sorted { ($0.count, $1.event) > ($1.count, $0.event) }
    }

    /// `$element_click` events grouped by path, most clicked first, with the page and the text
    /// of the most recent click.
    public func elements(grouping: ElementGrouping = .exact, limit: Int = 50) -> [ElementStatistics] {
        var indexByKey: [String: Int] = [:]
        var groups: [(path: String, page: String?, text: String?, clicks: Int, people: Set<String>)] = []
        for (index, event) in events.enumerated() where event.isTrack("$element_click") {
            guard let exact = event.elementPath else { continue }
            let key = grouping == .similar ? (event.similarPath ?? exact) : exact
            let group: Int
            if let known = indexByKey[key] {
                group = known
            } else {
                group = groups.count
                indexByKey[key] = group
                groups.append((key, nil, nil, 0, []))
            }
            groups[group].clicks += 1
            groups[group].people.insert(people[index])
            if let page = event.page { groups[group].page = page }
            if let text = event.elementText { groups[group].text = text }
        }
        return groups.map { group in
            ElementStatistics(
                path: group.path, page: group.page, text: group.text, clicks: group.clicks,
                uniqueVisitors: group.people.count)
        }.sorted { ($0.clicks, $1.path) > ($1.clicks, $0.path) }.prefix(max(0, limit)).map { $0 }
    }

    /// Exposures, skips, clicks and exposure→click rate per `$item_id`, most exposed first.
    public func items(limit: Int = 100) -> [ItemStatistics] {
        var counts: [String: (exposures: Int, skips: Int, clicks: Int)] = [:]
        for event in events where event.type == .track {
            guard let item = event.itemId else { continue }
            switch event.name {
            case "$item_exposure": counts[item, default: (0, 0, 0)].exposures += 1
            case "$item_skip": counts[item, default: (0, 0, 0)].skips += 1
            case "$element_click": counts[item, default: (0, 0, 0)].clicks += 1
            default: break
            }
        }
        return counts.map {
            ItemStatistics(
                itemId: $0.key, exposures: $0.value.exposures, skips: $0.value.skips, clicks: $0.value.clicks)
        }
        .sorted { ($0.exposures, $0.clicks, $1.itemId) > ($1.exposures, $1.clicks, $0.itemId) }
        .prefix(max(0, limit)).map { $0 }
    }
}
