import FootprintWire

/// The page views and `$screen_leave` events of one session in time order, and the span of all
/// its events: what dwell, paths and session length are computed from.
///
/// One type serves both sides: ``ReportEngine`` builds a timeline per session of the events it
/// reads, and the store keeps one per stored session, updated on ingest, to maintain the dwell,
/// path and session rollups. Events may arrive in any order: ``add(time:mark:)`` keeps the
/// marks sorted by time (equal times in arrival order), so the figures never depend on it.
public struct SessionTimeline: Sendable, Hashable {
    /// A page view or a leave.
    public enum Mark: Sendable, Hashable {
        /// A view of a named page.
        case view(page: String)
        /// A `$screen_leave` of a page with its measured duration.
        case leave(page: String, durationMilliseconds: Int64)
    }

    /// A mark's kind as a number, where marks are stored as rows (the ClickHouse store's `mark`
    /// column and the tuples of ``StoredMark``).
    public enum MarkCode: UInt8, Sendable {
        /// No mark: an event that is neither a named page view nor a timed leave.
        case none = 0
        /// ``Mark/view(page:)``.
        case view = 1
        /// ``Mark/leave(page:durationMilliseconds:)``.
        case leave = 2
    }

    /// A mark as a store keeps it in a row of numbers and text (the ClickHouse store's session
    /// reads walk arrays of such tuples as ``dwells(cap:)`` and ``moves()`` walk the marks).
    public enum StoredMark {
        /// The fields of the tuple, in order (`tuple.1` is ``time``).
        public enum Field: Int, Sendable, CaseIterable {
            /// When (milliseconds since 1970).
            case time = 1
            /// The event's stored order: it orders marks of equal times.
            case sequence
            /// The ``MarkCode``.
            case code
            /// The page viewed or left (`""` for none).
            case page
            /// A leave's duration in milliseconds (`0` for a view).
            case duration
            /// The mark's UTC day (days since 1970-01-01).
            case day
        }

        /// The fields of `mark`: its code, page and duration (`(none, "", 0)` for none).
        public static func fields(of mark: Mark?) -> (code: MarkCode, page: String, duration: Int64) {
            switch mark {
            case .view(let page)?: return (.view, page, 0)
            case .leave(let page, let duration)?: return (.leave, page, duration)
            case nil: return (.none, "", 0)
            }
        }
    }

    /// A mark and when it happened (milliseconds since 1970).
    public struct TimedMark: Sendable, Hashable {
        /// When.
        public var time: Int64
        /// What.
        public var mark: Mark
    }

    /// The most marks a timeline keeps: the earliest ones. A session's row is rewritten when its
    /// events arrive, so a client that never changes its session id cannot make ingest slow
    /// down; dwell and paths count the session's first 1,000 page views and leaves.
    public static let maximumMarks = 1_000

    /// The marks, oldest first (at most ``maximumMarks``: the earliest).
    public private(set) var marks: [TimedMark] = []
    /// The first event's time (any event), or `nil` for an empty timeline.
    public private(set) var start: Int64?
    /// The last event's time.
    public private(set) var end: Int64?
    /// Page views, named or not.
    public private(set) var pageViews = 0

    /// An empty timeline.
    public init() {}

    /// Adds an event: its time and, for a named page view or a leave with a page and a
    /// duration, its mark.
    /// - Parameter isPageView: whether it is a page view (named or not), counted in ``pageViews``.
    public mutating func add(time: Int64, mark: Mark?, isPageView: Bool = false) {
        start = Swift.min(start ?? time, time)
        end = Swift.max(end ?? time, time)
        if isPageView { pageViews.addSaturating(1) }
        guard let mark else { return }
        var index = marks.count
        while index > 0, marks[index - 1].time > time { index -= 1 }
        guard index < Self.maximumMarks else { return }
        marks.insert(TimedMark(time: time, mark: mark), at: index)
        if marks.count > Self.maximumMarks { marks.removeLast() }
    }

    /// Adds an analytics event (see ``mark(of:)``).
    public mutating func add(_ event: AnalyticsEvent) {
        add(time: event.time.millisecondsSince1970, mark: Self.mark(of: event), isPageView: event.isPageView)
    }

    /// The mark an event leaves on a timeline: named page views and `$screen_leave` events with a
    /// page and a duration of at least 0; `nil` for every other event.
    public static func mark(of event: AnalyticsEvent) -> Mark? {
        mark(
            type: event.type, name: event.name, page: event.page,
            durationMilliseconds: event.durationMilliseconds)
    }

    /// The mark of an event given by its fields (see ``mark(of:)``).
    public static func mark(type: MessageType, name: String?, page: String?, durationMilliseconds: Int64?)
        -> Mark?
    {
        if type == .screen || type == .page { return name.map { .view(page: $0) } }
        guard type == .track, name == "$screen_leave", let page, let duration = durationMilliseconds,
            duration >= 0
        else { return nil }
        return .leave(page: page, durationMilliseconds: duration)
    }

    /// A measured visit: the page, the UTC day it was viewed, and how long it stayed.
    public struct Dwell: Sendable, Hashable {
        /// The page.
        public var page: String
        /// Days since 1970-01-01 of the view.
        public var day: Int64
        /// The dwell in milliseconds.
        public var milliseconds: Int64
    }

    /// Each visit's dwell: its `$screen_leave` duration when a leave of the same page follows it,
    /// else the gap to the next page view capped at `cap`; a last visit with neither has none.
    public func dwells(cap: Int64) -> [Dwell] {
        var result: [Dwell] = []
        var open: TimedMark?
        for timed in marks {
            switch timed.mark {
            case .view:
                if let visit = open, case .view(let page) = visit.mark {
                    let gap = Swift.min(Swift.max(0, timed.time.saturatingSubtract(visit.time)), cap)
                    result.append(Dwell(page: page, day: Self.day(of: visit.time), milliseconds: gap))
                }
                open = timed
            case .leave(let page, let duration):
                guard let visit = open, case .view(let viewed) = visit.mark, viewed == page else { continue }
                result.append(Dwell(page: page, day: Self.day(of: visit.time), milliseconds: duration))
                open = nil
            }
        }
        return result
    }

    /// A step from a page to the next page viewed in the session.
    public struct Move: Sendable, Hashable {
        /// The page left.
        public var from: String
        /// The next page, `nil` when the session ended there.
        public var to: String?
        /// Days since 1970-01-01 of the view of `from`.
        public var day: Int64
    }

    /// Every page view with the page viewed next (`nil` after the last).
    public func moves() -> [Move] {
        var result: [Move] = []
        var previous: TimedMark?
        for timed in marks {
            guard case .view(let page) = timed.mark else { continue }
            if let previous, case .view(let from) = previous.mark {
                result.append(Move(from: from, to: page, day: Self.day(of: previous.time)))
            }
            previous = timed
        }
        if let previous, case .view(let from) = previous.mark {
            result.append(Move(from: from, to: nil, day: Self.day(of: previous.time)))
        }
        return result
    }

    /// The session an event belongs to: `s:` and its `context.sessionId`; without one (the
    /// Footprint SDK always sends it), `p:` and its device (else user) and UTC day.
    public static func sessionKey(sessionId: String?, anonymousId: String?, userId: String?, time: Timestamp)
        -> String
    {
        if let sessionId { return "s:" + sessionId }
        return "p:\(time.dayNumber):" + (anonymousId ?? userId ?? "")
    }

    static func day(of time: Int64) -> Int64 {
        Timestamp(millisecondsSince1970: time).dayNumber
    }
}

extension SessionTimeline {
    /// The marks as the store keeps them (``init(start:end:pageViews:storedMarks:)`` reads them):
    /// a format byte (1), the number of marks, then per mark, as varints (``Varint``): its page
    /// (the page's place among the session's pages seen before, from 1, shifted left once, the
    /// low bit set for a leave; or 0 or 1 and then the new page's UTF-8 length and bytes), its
    /// time as the signed step from the one before (the first from ``start``), and a leave's
    /// duration, signed. A session's marks repeat few pages, seconds apart: about 6 bytes a mark
    /// where ``encodedMarks`` takes about 35.
    public var storedMarks: [UInt8] {
        var bytes: [UInt8] = [Self.storedMarksFormat]
        Varint.append(UInt64(marks.count), to: &bytes)
        var pages: [String: UInt64] = [:]
        var previous = start ?? 0
        for timed in marks {
            let (page, duration): (String, Int64?) =
                switch timed.mark {
                case .view(let page): (page, nil)
                case .leave(let page, let duration): (page, duration)
                }
            let leave: UInt64 = duration == nil ? 0 : 1
            if let place = pages[page] {
                Varint.append(place << 1 | leave, to: &bytes)
            } else {
                Varint.append(leave, to: &bytes)
                let utf8 = Array(page.utf8)
                Varint.append(UInt64(utf8.count), to: &bytes)
                bytes += utf8
                pages[page] = UInt64(pages.count + 1)
            }
            Varint.append(signed: timed.time &- previous, to: &bytes)
            previous = timed.time
            if let duration { Varint.append(signed: duration, to: &bytes) }
        }
        return bytes
    }

    /// The first byte of ``storedMarks``.
    static let storedMarksFormat: UInt8 = 1

    /// A stored timeline: its span, page views and ``storedMarks``; `nil` when the bytes are not
    /// what ``storedMarks`` writes (every length and page place is checked, and every byte read).
    public init?(start: Int64, end: Int64, pageViews: Int, storedMarks bytes: UnsafeRawBufferPointer) {
        var reader = Varint.Reader(bytes)
        guard reader.take(1)?.first == Self.storedMarksFormat, let count = reader.next(),
            count <= UInt64(Self.maximumMarks)
        else { return nil }
        self.init()
        self.start = start
        self.end = end
        self.pageViews = pageViews
        var pages: [String] = []
        var previous = start
        for _ in 0..<count {
            guard let head = reader.next() else { return nil }
            let page: String
            if head >> 1 == 0 {
                guard let length = reader.next(), let utf8 = reader.take(length),
                    let new = String(validating: utf8, as: UTF8.self)
                else { return nil }
                page = new
                pages.append(page)
            } else {
                guard head >> 1 <= UInt64(pages.count) else { return nil }
                page = pages[Int(head >> 1) - 1]
            }
            guard let step = reader.nextSigned() else { return nil }
            previous = previous &+ step
            if head & 1 == 1 {
                guard let duration = reader.nextSigned() else { return nil }
                marks.append(
                    TimedMark(time: previous, mark: .leave(page: page, durationMilliseconds: duration)))
            } else {
                marks.append(TimedMark(time: previous, mark: .view(page: page)))
            }
        }
        guard reader.isAtEnd else { return nil }
    }

    /// The marks as compact JSON (`[[time, page], [time, page, duration], …]`: a view has two
    /// elements, a leave three): how the store kept them before ``storedMarks``, and still reads
    /// them in the rows written then.
    public var encodedMarks: String {
        JSONWriter.string(
            .array(
                marks.map { timed in
                    switch timed.mark {
                    case .view(let page): return .array([.int(timed.time), .string(page)])
                    case .leave(let page, let duration):
                        return .array([.int(timed.time), .string(page), .int(duration)])
                    }
                }))
    }

    /// A stored timeline: its span, page views and ``encodedMarks``; `nil` when the marks are
    /// not what ``encodedMarks`` writes.
    public init?(start: Int64, end: Int64, pageViews: Int, encodedMarks: String) {
        guard case .array(let items)? = try? JSONParser().parse(encodedMarks) else { return nil }
        self.init()
        self.start = start
        self.end = end
        self.pageViews = pageViews
        for item in items {
            guard case .array(let fields) = item, let time = fields.first?.int64Value,
                fields.count >= 2, case .string(let page) = fields[1]
            else { return nil }
            if fields.count == 3, let duration = fields[2].int64Value {
                marks.append(TimedMark(time: time, mark: .leave(page: page, durationMilliseconds: duration)))
            } else if fields.count == 2 {
                marks.append(TimedMark(time: time, mark: .view(page: page)))
            } else {
                return nil
            }
        }
    }
}
