import FootprintSQLite
import FootprintWire

/// Which stored events and identity links are one person's, by the rule every report merges
/// people with: an event's person is its `userId`, else the user id its `anonymousId` was
/// linked to (identify, alias; the smallest when it was linked to several), else the
/// `anonymousId`.
struct PersonSelection: Sendable, Hashable {
    /// The person: `id` itself, or the user id the anonymous id `id` is linked to.
    let person: String
    /// The anonymous ids whose events without a user id are the person's: those whose linked
    /// user id is ``person``, and ``person`` itself when it is an anonymous id without a link.
    let anonymousIds: Set<String>

    /// The person `id` names, with `links` (`anonymousId` → its `userId`, as
    /// ``EventStore/identityLinks(projectId:)`` gives them).
    init(id: String, links: [String: String]) {
        let person = links[id] ?? id
        var anonymousIds = Set(links.compactMap { $0.value == person ? $0.key : nil })
        if links[person] == nil { anonymousIds.insert(person) }
        self.person = person
        self.anonymousIds = anonymousIds
    }

    /// Whether an event with these ids is the person's.
    func owns(anonymousId: String?, userId: String?) -> Bool {
        if let userId, !userId.isEmpty { return userId == person }
        return anonymousIds.contains(anonymousId ?? "")
    }

    /// Whether an identity link names the person or one of its anonymous ids.
    func owns(link anonymousId: String, userId: String) -> Bool {
        userId == person || anonymousIds.contains(anonymousId)
    }

    /// Every id the person is known by (refused for a while after a deletion).
    var allIds: Set<String> { anonymousIds.union([person]) }

    /// The SQL condition on `events` (`?1` the project) that selects the person's events, with
    /// its values from `?first` on.
    func eventCondition(first: Int) -> (sql: String, values: [SQLiteValue]) {
        let ids = JSONWriter.string(.array(anonymousIds.sorted().map(JSONValue.string)))
        return (
            "(user_id = ?\(first) OR (coalesce(user_id, '') = '' AND anonymous_id IN (SELECT value FROM json_each(?\(first + 1)))))",
            [.text(person), .text(ids)]
        )
    }
}
