import FootprintServer
import FootprintWire

/// The two ways any bytes from a client reach the server's decoding, as one call each: the
/// fuzzer (`make fuzz`, `Sources/FootprintFuzzer`) feeds them mutated inputs, and the tests replay
/// the checked-in corpus and every crash input found so far (`Tests/Fuzz`).
///
/// Each call runs the same code a request runs and then checks what must hold whatever the
/// input; a broken rule stops the process (`precondition`), which the fuzzer records as a crash.
public enum FuzzEntry {
    /// The time every input is received at (2026-11-29T12:00:00Z), so that a replay decodes
    /// exactly as the run that found it.
    public static let receivedAt = Timestamp(millisecondsSince1970: 1_795_953_600_000)

    /// What an ingest body came to.
    public struct IngestOutcome: Sendable, Hashable {
        /// `200` when the body was decoded, else the status its refusal answers (`400`, `413`, ...).
        public var status: Int
        /// Events accepted.
        public var accepted = 0
        /// Events refused one by one.
        public var rejected = 0
    }

    /// Runs `bytes` as an ingest body: inflated when it starts with the gzip magic bytes (as
    /// `Content-Encoding: gzip`), parsed as JSON, then decoded as a `/v1/batch` body and as a
    /// single message of the type it names (else `track`) when it has no `batch` — validation,
    /// clock correction and record building — every accepted event summed into the rollups and
    /// its session's timeline as the writer does, and every report of the ``ReportEngine`` made
    /// over them.
    ///
    /// Checks: every batch item is either accepted or refused with a reason, every accepted
    /// event's stored payload is JSON again, its ids are within the limits, and every session
    /// timeline reads back from its stored form as it was written.
    public static func ingest(_ bytes: [UInt8]) -> IngestOutcome {
        let isGzip = bytes.count >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b
        let request = ServerRequest(
            method: "POST", path: "/v1/batch",
            headers: isGzip ? ["Content-Encoding": "gzip"] : [:], body: bytes, receivedAt: receivedAt)
        let body: [UInt8]
        let json: JSONValue
        do {
            body = try IngestAPI.decompressedBody(request, configuration: IngestAPI.Configuration())
        } catch let refusal as Refusal {
            return IngestOutcome(status: refusal.response.status)
        } catch {
            return IngestOutcome(status: 500)
        }
        do {
            json = try JSONParser().parse(body)
        } catch {
            return IngestOutcome(status: 400)
        }
        let impliedType: MessageType? =
            json["batch"] == nil
            ? json["type"]?.stringValue.flatMap(MessageType.init(rawValue:)) ?? .track : nil
        guard let decoded = try? IngestDecoder.decode(json, impliedType: impliedType, receivedAt: receivedAt)
        else {
            return IngestOutcome(status: 400)
        }
        check(decoded, items: impliedType == nil ? json["batch"]?.arrayValue?.count ?? 0 : 1)
        var rollups = RollupDelta()
        for event in decoded.events { rollups.add(event, project: 1) }
        // Each session's timeline, as the writer builds it, stored and read back, then its dwell
        // and moves summed.
        for (key, added) in rollups.sessions {
            var timeline = SessionTimeline()
            for event in added.events {
                timeline.add(time: event.time, mark: event.mark, isPageView: event.isPageView)
            }
            if let start = timeline.start, let end = timeline.end {
                let stored = timeline.storedMarks.withUnsafeBytes {
                    SessionTimeline(start: start, end: end, pageViews: timeline.pageViews, storedMarks: $0)
                }
                precondition(stored == timeline, "a session timeline that does not read back as written")
            }
            rollups.replace(
                session: key, before: nil, after: timeline, appVersion: added.appVersion, os: added.os)
        }
        report(decoded)
        return IngestOutcome(status: 200, accepted: decoded.events.count, rejected: decoded.rejections.count)
    }

    /// Runs `bytes` as a report request's query string (`from=2026-11-01&step1=event:Buy&...`),
    /// decoded as the server decodes a query (``RequestTarget/fields(_:code:)``): the common
    /// parameters and every per-report one.
    /// - Returns: `nil` when the query is refused (a `400` naming the parameter), else what
    ///   was read.
    public static func reportParameters(_ bytes: [UInt8]) -> ReportParameters? {
        guard let query = try? RequestTarget.fields(bytes, code: .invalidQuery) else { return nil }
        guard let parameters = try? ReportParameters(query: query, now: receivedAt) else { return nil }
        let from = parameters.filter.from?.millisecondsSince1970 ?? Int64.min
        let to = parameters.filter.to?.millisecondsSince1970 ?? Int64.max
        precondition(from < to, "an empty or inverted range")
        precondition(parameters.fromDay <= parameters.toDay, "the first day after the last")
        for (name, range) in [
            ("limit", 1...1000), ("after", 0...Int.max), ("days", 1...60), ("window_days", 1...365),
        ] {
            if let value = try? parameters.integer(name, default: range.lowerBound, in: range) {
                precondition(range.contains(value), "\(name) out of its range")
            }
        }
        _ = try? parameters.grouping()
        let definition = EventDefinition(
            id: "def-1", name: "Checkout", matchers: [EventMatcher(event: "Checkout")])
        if let steps = try? parameters.funnelSteps(definitions: [definition]) {
            precondition(steps.count <= 10, "more than ten funnel steps")
        }
        return parameters
    }

    /// Runs `bytes` as a request target as it appears in the request line
    /// (`/v1/people/alice%00x?page=A+B`), decoded as the server decodes every request's.
    ///
    /// Checks: a raw NUL byte is never accepted; what is accepted is a path starting with `/` (or
    /// `*`) and, percent-encoded again byte by byte, decodes to the same path and query; every
    /// id the path's segments would give is either refused or free of NUL characters.
    /// - Returns: the decoded target, or `nil` when it is refused (400).
    public static func requestTarget(_ bytes: [UInt8]) -> RequestTarget? {
        guard let target = try? RequestTarget(bytes) else { return nil }
        precondition(!bytes.contains(0), "a raw NUL byte accepted")
        // Bytes, not characters: "/" followed by a combining mark is one character.
        precondition(
            target.path.utf8.first == UInt8(ascii: "/") || target.path == "*", "a path that is not one")
        // Every byte escaped but the path's slashes and a lone `*`, which give the path its shape.
        func encoded(_ text: String, keeping kept: Set<UInt8> = []) -> String {
            text.utf8.map { byte in
                if kept.contains(byte) { return String(UnicodeScalar(byte)) }
                let hex = String(byte, radix: 16, uppercase: true)
                return "%" + (byte < 16 ? "0" + hex : hex)
            }.joined()
        }
        let query = target.query.sorted { $0.key < $1.key }.map { encoded($0.key) + "=" + encoded($0.value) }
        let path = target.path == "*" ? "*" : encoded(target.path, keeping: [UInt8(ascii: "/")])
        let again = path + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
        let decoded = try? RequestTarget(Array(again.utf8))
        precondition(decoded == target, "a target that does not read back as decoded")
        for segment in target.path.split(separator: "/", omittingEmptySubsequences: false) {
            if let id = try? RequestTarget.identifier(segment, name: "id") {
                precondition(!id.utf8.contains(0), "an id holding a NUL accepted")
            }
        }
        return target
    }

    /// Every report of the engine over the accepted events, as for a range that is not whole days.
    private static func report(_ decoded: IngestDecoder.Decoded) {
        let events = decoded.events.map { event in
            AnalyticsEvent(
                type: event.type, name: event.name, time: event.time, anonymousId: event.anonymousId,
                userId: event.userId, sessionId: event.sessionId, page: event.page,
                elementPath: event.elementPath,
                similarPath: event.similarPath, elementText: event.elementText, itemId: event.itemId,
                durationMilliseconds: event.durationMilliseconds, appVersion: event.appVersion, os: event.os)
        }
        let links = Dictionary(
            decoded.identityLinks.map { ($0.anonymousId, $0.userId) }, uniquingKeysWith: { first, _ in first }
        )
        let engine = ReportEngine(events: events, identityLinks: links)
        _ = engine.traffic()
        _ = engine.topEvents()
        _ = engine.elements(grouping: .exact)
        _ = engine.elements(grouping: .similar)
        _ = engine.items()
        _ = engine.sessions()
        _ = engine.topTransitions()
        if let page = events.first(where: \.isPageView)?.name { _ = engine.paths(after: page) }
        _ = engine.retention(returnEvent: events.last?.name)
        let steps = events.prefix(4).compactMap { event -> FunnelStep? in
            guard let name = event.name else { return nil }
            return event.isPageView ? .page(name) : .event(name)
        }
        _ = engine.funnel(steps)
    }

    private static func check(_ decoded: IngestDecoder.Decoded, items: Int) {
        precondition(
            decoded.events.count + decoded.rejections.count == items,
            "a batch item neither accepted nor refused")
        for event in decoded.events {
            precondition(
                (try? JSONParser().parse(Array(event.payload.utf8))) != nil, "a payload that is not JSON")
            precondition(
                !event.messageId.isEmpty && event.messageId.utf8.count <= MessageLimits.maximumIdBytes,
                "a messageId outside its limits")
            for id in [event.anonymousId, event.userId] {
                precondition((id?.utf8.count ?? 0) <= MessageLimits.maximumIdBytes, "an id over its limit")
            }
        }
        for rejection in decoded.rejections {
            precondition(!rejection.code.isEmpty && !rejection.reason.isEmpty, "a refusal without a reason")
        }
    }
}
