/// The remote-configuration state machine: decides when to ask the server for the plan
/// (`GET /v1/config`) and what a response means. Pure: the caller passes the time and does the
/// I/O.
///
/// - It fetches at launch, then on foreground or timer at most once per refresh interval
///   (counted from the last request started, answered or not), never two at once — unless a
///   request has been out for a whole interval without an answer.
/// - `200` with a valid plan is applied and its `ETag` kept; `304` keeps the plan in force; a
///   `200` with an invalid plan is rejected and the last good plan stays (its ETag too, so the
///   server keeps answering with the new body until it is fixed); any other status or a network
///   failure keeps the plan in force.
public struct RemoteConfigRefresh: Sendable {
    /// What asked for a refresh.
    public enum Trigger: Sendable, Hashable {
        /// The app launched (always fetches).
        case launch
        /// The app came to the foreground.
        case foreground
        /// A periodic timer.
        case timer
    }

    /// Whether to send a request now.
    public enum Decision: Sendable, Hashable {
        /// Send `GET /v1/config`, with `If-None-Match` when an ETag is known.
        case fetch(ifNoneMatch: String?)
        /// Not now.
        case wait
    }

    /// What a response means.
    public enum Outcome: Sendable, Hashable {
        /// A new valid plan: put it in force and cache it with its ETag.
        case apply(TrackingPlan, etag: String?)
        /// The server's plan is the one in force (`304`).
        case unchanged
        /// The server sent an invalid plan: it is ignored and the last good plan stays.
        case rejected(PlanError)
        /// No answer, or a status that carries no plan: the plan in force stays.
        case failed(reason: String)
    }

    /// The shortest time between two requests, in milliseconds.
    public let refreshIntervalMilliseconds: Int64
    /// The ETag of the plan in force, sent as `If-None-Match`.
    public private(set) var etag: String?
    private var lastRequestAt: Timestamp?
    private var isRequestOut = false

    /// Creates the state machine.
    /// - Parameters:
    ///   - refreshIntervalMilliseconds: the shortest time between two requests.
    ///   - etag: the ETag of the cached plan, when one was loaded.
    public init(refreshIntervalMilliseconds: Int64, etag: String? = nil) {
        self.refreshIntervalMilliseconds = refreshIntervalMilliseconds
        self.etag = etag
    }

    /// Something asks for a refresh at `now`.
    public mutating func refreshRequested(_ trigger: Trigger, now: Timestamp) -> Decision {
        if let last = lastRequestAt {
            let elapsed = now.millisecondsSince1970 - last.millisecondsSince1970
            let intervalPassed = elapsed >= refreshIntervalMilliseconds || elapsed < 0
            if isRequestOut, !intervalPassed { return .wait }
            if trigger != .launch, !intervalPassed { return .wait }
        }
        lastRequestAt = now
        isRequestOut = true
        return .fetch(ifNoneMatch: etag)
    }

    /// The server answered.
    public mutating func responseReceived(_ response: HTTPResponse) -> Outcome {
        isRequestOut = false
        switch response.status {
        case 200:
            do {
                let plan = try TrackingPlan(jsonBytes: response.body)
                etag = response.headers["etag"].flatMap { $0.isEmpty ? nil : $0 }
                return .apply(plan, etag: etag)
            } catch {
                return .rejected(error)
            }
        case 304:
            return .unchanged
        default:
            return .failed(reason: "the server answered HTTP \(response.status)")
        }
    }

    /// The request failed without an answer.
    public mutating func requestFailed(_ reason: String) -> Outcome {
        isRequestOut = false
        return .failed(reason: reason)
    }
}
