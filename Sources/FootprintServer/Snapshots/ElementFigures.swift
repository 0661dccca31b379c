import FootprintWire

/// One element of a snapshot with its clicks and people over a range, by its exact path and by
/// its similar path (every row of a list together), from the same rollups as the elements report.
public struct ElementFigures: Sendable, Hashable {
    /// The element's place in the snapshot's `elements`.
    public var index: Int
    /// Its exact path.
    public var path: String
    /// Its similar path.
    public var similarPath: String
    /// `$element_click` events with its exact path.
    public var clicks: Int
    /// Distinct people who made them.
    public var people: Int
    /// `$element_click` events with its similar path.
    public var similarClicks: Int
    /// Distinct people who made them.
    public var similarPeople: Int

    /// Creates figures.
    public init(
        index: Int, path: String, similarPath: String, clicks: Int, people: Int, similarClicks: Int,
        similarPeople: Int
    ) {
        self.index = index
        self.path = path
        self.similarPath = similarPath
        self.clicks = clicks
        self.people = people
        self.similarClicks = similarClicks
        self.similarPeople = similarPeople
    }

    /// The exact and similar path of each element of a stored snapshot document, in order
    /// (an element without a text `path` is skipped; without `similar_path`, its path).
    public static func paths(ofDocument document: String) -> [(index: Int, path: String, similarPath: String)]
    {
        guard let json = try? JSONParser(maximumDepth: 8).parse(Array(document.utf8)),
            let elements = json["elements"]?.arrayValue
        else { return [] }
        return elements.enumerated().compactMap { index, element in
            guard let path = element["path"]?.stringValue else { return nil }
            return (index, path, element["similar_path"]?.stringValue ?? path)
        }
    }

    /// The figures as the JSON API shows them.
    public var jsonValue: JSONValue {
        [
            "index": .int(Int64(index)), "path": .string(path), "similarPath": .string(similarPath),
            "clicks": .int(Int64(clicks)), "people": .int(Int64(people)),
            "similarClicks": .int(Int64(similarClicks)), "similarPeople": .int(Int64(similarPeople)),
        ]
    }
}
