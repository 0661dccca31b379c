import FootprintWire

/// What a report over a range that starts before a project's retention horizon says: the
/// days before it were deleted, so the report counts only the days from the horizon on.
struct RetentionNote: Sendable, Hashable {
    /// The first day still held whole.
    let horizon: Timestamp

    /// The note for people (the dashboard shows it above the report).
    var text: String {
        "Events before \(horizon.iso8601.prefix(10)) were deleted by the retention setting; this report counts the days from then on."
    }

    /// The note as the JSON API adds it to a report (`"retention"`).
    var jsonValue: JSONValue {
        ["horizon": .string(String(horizon.iso8601.prefix(10))), "note": .string(text)]
    }

    /// `response` (a JSON report) with the note: a `retention` member in its object and the
    /// `Footprint-Retention-Horizon` header.
    func mark(_ response: ServerResponse) -> ServerResponse {
        var marked = response
        marked.headers["Footprint-Retention-Horizon"] = String(horizon.iso8601.prefix(10))
        if case .object(var members)? = try? JSONParser().parse(response.body) {
            members["retention"] = jsonValue
            marked.body = JSONWriter.bytes(.object(members))
        }
        return marked
    }
}
