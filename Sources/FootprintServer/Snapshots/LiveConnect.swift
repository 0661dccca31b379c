import FootprintWire

/// The live connect view's next step.
public struct LiveConnect: Sendable, Hashable {
    /// The session (its state tells the view when to stop).
    public var session: ConnectSession
    /// Its snapshots after the cursor, oldest first.
    public var snapshots: [SnapshotSummary]
    /// Its devices' taps after the cursor, oldest first.
    public var clicks: [DeviceClick]
    /// The next call's `afterSnapshot`.
    public var snapshotCursor: Int64
    /// The next call's `afterEvent`.
    public var eventCursor: Int64

    /// Creates a step.
    public init(
        session: ConnectSession, snapshots: [SnapshotSummary], clicks: [DeviceClick], snapshotCursor: Int64,
        eventCursor: Int64
    ) {
        self.session = session
        self.snapshots = snapshots
        self.clicks = clicks
        self.snapshotCursor = snapshotCursor
        self.eventCursor = eventCursor
    }

    /// The step as the JSON API shows it, the session's state at `now`.
    public func jsonValue(at now: Timestamp) -> JSONValue {
        [
            "session": session.jsonValue(at: now), "snapshots": .array(snapshots.map(\.jsonValue)),
            "clicks": .array(clicks.map(\.jsonValue)),
            "cursor": ["snapshot": .int(snapshotCursor), "event": .int(eventCursor)],
        ]
    }
}
