/// The Segment mobile-spec lifecycle events as a pure state machine: the platform adapter's
/// signals (launch, active, foreground, background, deep link) and the release remembered from
/// the last launch go in; the events to record come out.
///
/// One tracker lives for one process, so one value sees one launch: `Application Opened` with
/// `from_background: false` is reported once, whichever of the launch or the first activation
/// comes first, and a return to the foreground is reported once however many scenes announce
/// it. `Application Backgrounded` is reported only when the app was known to be in the
/// foreground. The release is remembered (by the caller, across launches) whatever the
/// switches, so an install is reported once per device and an update once per new release.
struct AppLifecycleState: Sendable, Hashable {
    /// Where the app is, as far as the signals tell.
    enum Phase: Sendable, Hashable {
        /// No signal yet in this process.
        case unknown
        case foreground
        case background
    }

    /// A signal from the platform adapter (or the app).
    enum Signal: Sendable, Hashable {
        /// The app finished launching (`didFinishLaunching`), opened by `opening` when known.
        case launched(AppOpening)
        /// The app became active (`didBecomeActive`).
        case becameActive
        /// The app is coming back to the foreground (`willEnterForeground`).
        case enteringForeground
        /// The app went to the background (`didEnterBackground`).
        case enteredBackground
        /// The app was asked to open a URL (``Tracker/handle(url:referringApplication:)``).
        case openedURL(AppOpening)
    }

    /// One event to record.
    struct Event: Sendable, Hashable {
        /// The event name (`Application Opened`).
        var name: String
        /// Its properties.
        var properties: JSONObject
    }

    /// The spec's event names.
    enum Name {
        static let installed = "Application Installed"
        static let updated = "Application Updated"
        static let opened = "Application Opened"
        static let backgrounded = "Application Backgrounded"
        static let deepLinkOpened = "Deep Link Opened"
    }

    /// Which events are recorded.
    let switches: AppLifecycleEvents
    /// The release running now.
    let current: AppRelease
    /// The release seen at the last launch (persisted by the caller); `nil` before the first.
    private(set) var remembered: AppRelease?
    /// Where the app is.
    private(set) var phase = Phase.unknown
    /// Whether this launch's release was compared with the remembered one.
    private var releaseChecked = false

    /// Creates the state for one process.
    /// - Parameters:
    ///   - switches: which events to record.
    ///   - current: the release running now.
    ///   - remembered: the release stored at the last launch, `nil` if none.
    init(switches: AppLifecycleEvents, current: AppRelease, remembered: AppRelease?) {
        self.switches = switches
        self.current = current
        self.remembered = remembered
    }

    /// Applies `signal`.
    /// - Returns: the events to record, in order.
    mutating func apply(_ signal: Signal) -> [Event] {
        switch signal {
        case .launched(let opening):
            return phase == .unknown ? open(fromBackground: false, opening) : []
        case .becameActive:
            switch phase {
            case .unknown: return open(fromBackground: false, AppOpening())
            case .background: return open(fromBackground: true, AppOpening())
            case .foreground: return []
            }
        case .enteringForeground:
            return phase == .foreground ? [] : open(fromBackground: phase == .background, AppOpening())
        case .enteredBackground:
            defer { phase = .background }
            guard phase == .foreground, switches.backgrounds else { return [] }
            return [Event(name: Name.backgrounded, properties: [:])]
        case .openedURL(let opening):
            guard switches.deepLinks else { return [] }
            return [Event(name: Name.deepLinkOpened, properties: opening.properties)]
        }
    }

    /// The app comes to the foreground: the release check on the first time, then the open.
    private mutating func open(fromBackground: Bool, _ opening: AppOpening) -> [Event] {
        var events: [Event] = []
        if !releaseChecked { events += checkRelease() }
        phase = .foreground
        if switches.opens {
            var properties = opening.properties
            properties["from_background"] = .bool(fromBackground)
            properties.merge(current.properties) { own, _ in own }
            events.append(Event(name: Name.opened, properties: properties))
        }
        return events
    }

    /// `Application Installed` or `Updated` when the release is new to the device; remembers it.
    private mutating func checkRelease() -> [Event] {
        defer {
            remembered = current
            releaseChecked = true
        }
        guard let remembered else {
            return switches.installs ? [Event(name: Name.installed, properties: current.properties)] : []
        }
        guard remembered != current, switches.updates else { return [] }
        var properties = current.properties
        if let version = remembered.version { properties["previous_version"] = .string(version) }
        if let build = remembered.build { properties["previous_build"] = .string(build) }
        return [Event(name: Name.updated, properties: properties)]
    }
}
