import FootprintWire

/// A report request's parameters, read from a query string (the JSON API and the dashboard
/// share them): `project`, `from`, `to`, `app_version`, `os`, `page`, and per report `grouping`,
/// `step1`…`step10`, `window_days`, `return_event`, `days`, `limit`.
public struct ReportParameters: Sendable, Hashable {
    /// The project's name; `nil`: the first project.
    public var project: String?
    /// Time range and filters.
    public var filter: ReportFilter
    /// The range's first and last UTC day, as given or defaulted (`2026-11-01`).
    public var fromDay: String
    /// The range's last UTC day (included).
    public var toDay: String
    /// The raw query, for the per-report values.
    public var query: [String: String]

    /// The default range: the 30 days ending today.
    public static let defaultDays = 30

    /// The fewest days a default range fitted to the data spans (``fitted(toFirstDay:)``): 7.
    public static let minimumFittedDays = 7

    /// Reads the common parameters.
    /// - Parameters:
    ///   - query: the query string's arguments.
    ///   - now: today, for the default range.
    /// - Throws: ``ServerError`` with code `invalidQuery` naming the bad parameter.
    public init(query: [String: String], now: Timestamp) throws(ServerError) {
        self.query = query
        project = Self.nonEmpty(query["project"])
        let today = now.dayNumber
        let lastDay = try Self.day(query["to"], name: "to") ?? today
        let firstDay = try Self.day(query["from"], name: "from") ?? (lastDay - Int64(Self.defaultDays) + 1)
        guard firstDay <= lastDay else {
            throw ServerError(code: .invalidQuery, message: "from: must not be after to")
        }
        guard lastDay - firstDay < 3660 else {
            throw ServerError(code: .invalidQuery, message: "from: the range is at most ten years")
        }
        fromDay = Timestamp(millisecondsSince1970: firstDay * 86_400_000).dayString
        toDay = Timestamp(millisecondsSince1970: lastDay * 86_400_000).dayString
        filter = ReportFilter(
            from: Timestamp(millisecondsSince1970: firstDay * 86_400_000),
            to: Timestamp(millisecondsSince1970: (lastDay + 1) * 86_400_000),
            appVersion: Self.nonEmpty(query["app_version"]), os: Self.nonEmpty(query["os"]),
            page: Self.nonEmpty(query["page"]))
    }

    /// These parameters with the default range fitted to the data: when the query gave no
    /// `from`, the range starts at `firstDay`, the first day with data in it, or earlier so that
    /// it spans at least ``minimumFittedDays`` (never before the default start). Unchanged when
    /// `from` was given, or `firstDay` is `nil` or not after the range's first day.
    /// - Parameter firstDay: days since 1970-01-01 (UTC).
    public func fitted(toFirstDay firstDay: Int64?) -> ReportParameters {
        guard Self.nonEmpty(query["from"]) == nil, let firstDay, let from = filter.from?.dayNumber,
            let end = filter.to?.dayNumber
        else { return self }
        let lastDay = end - 1
        let start = max(from, min(firstDay, lastDay - Int64(Self.minimumFittedDays) + 1))
        guard start > from else { return self }
        var fitted = self
        fitted.filter.from = Timestamp(millisecondsSince1970: start * 86_400_000)
        fitted.fromDay = Timestamp(millisecondsSince1970: start * 86_400_000).dayString
        return fitted
    }

    /// A positive integer parameter within `range`, else `defaultValue` when absent.
    public func integer(_ name: String, default defaultValue: Int, in range: ClosedRange<Int>)
        throws(ServerError)
        -> Int
    {
        guard let text = Self.nonEmpty(query[name]) else { return defaultValue }
        guard let value = Int(text), range.contains(value) else {
            throw ServerError(
                code: .invalidQuery,
                message: "\(name): a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// A non-empty text parameter.
    public func text(_ name: String) -> String? { Self.nonEmpty(query[name]) }

    /// The element grouping (`grouping=exact|similar`, default exact).
    public func grouping() throws(ServerError) -> ElementGrouping {
        guard let text = text("grouping") else { return .exact }
        guard let grouping = ElementGrouping(rawValue: text) else {
            throw ServerError(code: .invalidQuery, message: "grouping: exact or similar")
        }
        return grouping
    }

    /// The funnel steps `step1`…`step10`: `event:NAME`, `page:NAME` or `defined:ID`.
    /// - Parameter definitions: the project's definitions, for `defined:` steps.
    public func funnelSteps(definitions: [EventDefinition]) throws(ServerError) -> [FunnelStep] {
        var steps: [FunnelStep] = []
        for index in 1...10 {
            guard let text = text("step\(index)") else { continue }
            let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[1].trimmingSpaces.isEmpty else {
                throw ServerError(
                    code: .invalidQuery, message: "step\(index): event:NAME, page:NAME or defined:ID")
            }
            let value = parts[1].trimmingSpaces
            switch parts[0].trimmingSpaces {
            case "event": steps.append(.event(value))
            case "page": steps.append(.page(value))
            case "defined":
                guard let definition = definitions.first(where: { $0.id == value }) else {
                    throw ServerError(code: .invalidQuery, message: "step\(index): no definition \(value)")
                }
                steps.append(.defined(definition))
            default:
                throw ServerError(
                    code: .invalidQuery, message: "step\(index): event:NAME, page:NAME or defined:ID")
            }
        }
        return steps
    }

    /// A day parameter: `2026-11-01` or an ISO-8601 time; `nil` when absent.
    static func day(_ text: String?, name: String) throws(ServerError) -> Int64? {
        guard let text = nonEmpty(text) else { return nil }
        if let time = Timestamp(iso8601: text) ?? Timestamp(iso8601: text + "T00:00:00Z") {
            return time.dayNumber
        }
        throw ServerError(code: .invalidQuery, message: "\(name): a day such as 2026-11-29")
    }

    static func nonEmpty(_ text: String?) -> String? {
        guard let trimmed = text?.trimmingSpaces, !trimmed.isEmpty else { return nil }
        return trimmed
    }
}
