/// An event produced by automatic capture (pages, elements, exposures), before the tracker
/// stamps it with ids, time, session, identity and context.
///
/// Capture code is pure: it turns adapter callbacks into `CapturedEvent`s and hands them to a
/// ``CaptureSink``; the tracker is the sink in the app, a collecting array in tests.
public struct CapturedEvent: Sendable, Hashable {
    /// Whether it becomes a Segment `track` or `screen` message.
    public enum Kind: Sendable, Hashable {
        /// A `track` message named `event` (auto events are `$`-prefixed: `$element_click`).
        case track(event: String)
        /// A `screen` message for the page `name`.
        case screen(name: String)
    }

    /// What message it becomes.
    public var kind: Kind
    /// Its properties; auto-captured keys are `$`-prefixed (`$element_path`, ...).
    public var properties: JSONObject
    /// When it happened, when it is recorded later than that (capture held it until the
    /// device's sampling was known); `nil`: now, as the sink records it. Default `nil`.
    public var timestamp: Timestamp?

    /// Creates a captured event.
    public init(kind: Kind, properties: JSONObject = [:], timestamp: Timestamp? = nil) {
        self.kind = kind
        self.properties = properties
        self.timestamp = timestamp
    }
}

/// Receives what automatic capture produces.
public protocol CaptureSink: AnyObject, Sendable {
    /// Records one captured event. Called on the thread of the UI callback: must return fast.
    func record(_ event: CapturedEvent)
}
