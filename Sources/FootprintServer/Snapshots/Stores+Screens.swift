import FootprintWire

/// What the connect view needs from both stores: a session kept in the metadata that starts
/// after the newest stored event, and the clicks its devices made since.
extension Stores {
    /// Starts a connect session (``ScreenStore/startConnectSession(projectId:tokenHash:hint:now:lifetimeSeconds:limits:firstEventSequence:)``)
    /// whose clicks start after the project's newest stored event (``EventStore/clickCursor(projectId:)``).
    public func startConnectSession(
        projectId: Int64, tokenHash: SecretHash, hint: String, now: Timestamp, lifetimeSeconds: Int64,
        limits: ConnectSession.Limits
    ) throws(ServerError) -> ConnectSession {
        try metadata.startConnectSession(
            projectId: projectId, tokenHash: tokenHash, hint: hint, now: now,
            lifetimeSeconds: lifetimeSeconds,
            limits: limits, firstEventSequence: try events.clickCursor(projectId: projectId))
    }

    /// The `$element_click` events of the devices whose snapshots `session` holds, after the
    /// event sequence `after` (``EventStore/deviceClicks(projectId:session:devices:after:limit:)``).
    public func deviceClicks(projectId: Int64, session: ConnectSession, after: Int64, limit: Int)
        throws(ServerError) -> DeviceClicks
    {
        try events.deviceClicks(
            projectId: projectId, session: session,
            devices: try metadata.connectSessionDevices(connectSessionId: session.id), after: after,
            limit: limit)
    }
}
