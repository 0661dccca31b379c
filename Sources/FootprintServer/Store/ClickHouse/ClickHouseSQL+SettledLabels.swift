import FootprintWire

/// The one page, app version or OS a settled read is filtered on: a round keeps the people of
/// any event, of page views per page and of page views of any page per each value of those
/// (``ClickHouseSQL/labelledKinds``), so that the traffic of one page, app version or OS is
/// counted from the round as the traffic of every event is (see docs/ARCHITECTURE.md, *Settled
/// people*).
struct SettledLabel: Hashable, Sendable {
    /// What a label names.
    enum Dimension: Sendable, CaseIterable {
        case page, appVersion, os

        /// Its column in the person rows.
        var column: String {
            switch self {
            case .page: "page"
            case .appVersion: "app_version"
            case .os: "os"
            }
        }
    }

    var dimension: Dimension
    var value: String

    /// `filter`'s one page, app version or OS; `nil` when it names none, or more than one.
    init?(_ filter: ReportFilter) {
        switch (filter.page, filter.appVersion, filter.os) {
        case (let page?, nil, nil): self.init(dimension: .page, value: page)
        case (nil, let version?, nil): self.init(dimension: .appVersion, value: version)
        case (nil, nil, let os?): self.init(dimension: .os, value: os)
        default: return nil
        }
    }

    init(dimension: Dimension, value: String) {
        self.dimension = dimension
        self.value = value
    }

    /// The start of the key of a row of page views per page kept by this label: the value's
    /// length in bytes, `:` and the value, then the page. The length makes it a prefix of no
    /// other value's keys, whatever bytes a client sent.
    var keyPrefix: String { "\(value.utf8.count):\(value)" }
}

extension ClickHouseSQL {
    /// A kind a round keeps per page, app version or OS: the rows of `base` (a settled kind, or
    /// ``anyPageKind``) of each value of `dimension`, stored as `kind`. Its key is the value; for
    /// page views per page, ``SettledLabel/keyPrefix`` and the page.
    struct LabelledKind: Sendable {
        var base: Int
        var dimension: SettledLabel.Dimension
        var kind: Int
    }

    /// The kinds a round keeps per page, app version or OS: any event per each; page views per
    /// page and of any page per app version and per OS. Page views per page on one page are the
    /// page's own rows (its key), so they need none.
    static let labelledKinds: [LabelledKind] = {
        let (any, views) = (Int(RollupKind.anyEvent.rawValue), Int(RollupKind.pageViews.rawValue))
        return [
            LabelledKind(base: any, dimension: .page, kind: 110),
            LabelledKind(base: any, dimension: .appVersion, kind: 111),
            LabelledKind(base: any, dimension: .os, kind: 112),
            LabelledKind(base: views, dimension: .appVersion, kind: 113),
            LabelledKind(base: views, dimension: .os, kind: 114),
            LabelledKind(base: anyPageKind, dimension: .appVersion, kind: 115),
            LabelledKind(base: anyPageKind, dimension: .os, kind: 116),
        ]
    }()

    /// The kind `base`'s rows of one value of `dimension` are kept as, if a round keeps them.
    static func labelledKind(_ base: Int, by dimension: SettledLabel.Dimension) -> Int? {
        labelledKinds.first { $0.base == base && $0.dimension == dimension }?.kind
    }

    /// Every kind of a round's people rows: the settled kinds, ``anyPageKind`` and
    /// ``labelledKinds``.
    static let settledKindCodes: [Int] =
        (settledPeopleKinds.map { Int($0.rawValue) } + [anyPageKind] + labelledKinds.map(\.kind)).sorted()

    /// The statements of a round that write its ``labelledKinds`` from the person rows of any
    /// event and of page views (`rows(kinds, output)` gives a subquery of `output`, `member,
    /// anonymous, day_block, mask` of the rows of `kinds`), into `into` after `head` with the
    /// masks `masks`: one scan of each, every dimension of a row at once.
    static func settleLabelled(
        into: String, head: String, masks: String, rows: (_ kinds: String, _ output: String) -> String
    ) -> [String] {
        let views = Int(RollupKind.pageViews.rawValue)
        let bases = [
            (Int(RollupKind.anyEvent.rawValue), [Int(RollupKind.anyEvent.rawValue)]),
            (views, [views, anyPageKind]),
        ]
        return bases.map { kind, labelled in
            let pairs = labelledKinds.filter { labelled.contains($0.base) }.map { labelled in
                let column = labelled.dimension.column
                let key =
                    labelled.base == views
                    ? "concat(toString(length(\(column))), ':', \(column), key)" : column
                return "(toUInt8(\(labelled.kind)), \(key))"
            }
            return """
                \(into)
                \(head), of_kind, of_key, member, anonymous, \(masks) FROM (
                    SELECT tupleElement(labelled, 1) AS of_kind, tupleElement(labelled, 2) AS of_key, member, anonymous, day_block, mask
                    FROM (\(rows("kind = \(kind)", "key, page, app_version, os")))
                    ARRAY JOIN [\(pairs.joined(separator: ", "))] AS labelled)
                GROUP BY of_kind, of_key, member, anonymous
                """
        }
    }
}
