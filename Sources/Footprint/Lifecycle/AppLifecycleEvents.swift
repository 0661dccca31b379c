/// Which Segment mobile-spec lifecycle events the tracker records by itself: see
/// ``Tracker/Configuration/lifecycleEvents`` and `docs/IOS.md`. Every switch is on by default.
public struct AppLifecycleEvents: Sendable, Hashable {
    /// `Application Installed` at the first launch (`version`, `build`). Default `true`.
    public var installs = true
    /// `Application Updated` at the first launch of a new version or build (`version`, `build`,
    /// `previous_version`, `previous_build`). Default `true`.
    public var updates = true
    /// `Application Opened` at a cold start (`from_background: false`) and on each return to
    /// the foreground (`from_background: true`), with `url`, `referring_application` or
    /// `notification` when known. Default `true`.
    public var opens = true
    /// `Application Backgrounded` when the app leaves the foreground. Default `true`.
    public var backgrounds = true
    /// `Deep Link Opened` (`url`, `referring_application`) from ``Tracker/handle(url:referringApplication:)``.
    /// Default `true`.
    public var deepLinks = true

    /// Every lifecycle event on.
    public init() {}

    /// No lifecycle event (the installed version is still remembered, so switching installs or
    /// updates on later does not report an old install).
    public static var none: AppLifecycleEvents {
        var events = AppLifecycleEvents()
        events.installs = false
        events.updates = false
        events.opens = false
        events.backgrounds = false
        events.deepLinks = false
        return events
    }
}
