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
        .sorted(by: EventStatistics.mostFrequentFirst).prefix(max(0, limit)).map { $0 }
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
        }.sorted(by: EventStatistics.mostFrequentFirst)
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
        let kinds: [String: RollupKind] = [
            "$item_exposure": .itemExposures, "$item_skip": .itemSkips, "$element_click": .itemClicks,
        ]
        let counts = events.compactMap { event -> RollupCount? in
            guard event.type == .track, let item = event.itemId, let kind = event.name.flatMap({ kinds[$0] })
            else { return nil }
            return RollupCount(day: 0, kind: kind, key: item, count: 1)
        }
        return RollupReports.items(counts: counts, limit: limit)
    }
}
