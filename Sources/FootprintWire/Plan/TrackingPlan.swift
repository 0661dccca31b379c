/// What automatic capture collects and uploads: named pages, named events and their triggers,
/// the upload mode, sampling, a block list and kill switches.
///
/// One format, read from JSON (``init(json:)``) or from a property list with the same keys; the
/// app bundles one and the server's remote configuration (`GET /v1/config`) replaces it. The
/// server validates published plans with the same code.
public struct TrackingPlan: Sendable, Hashable {
    /// The plan format version this code reads.
    public static let currentVersion: Int64 = 1

    /// The format version of the document (`version`, required, at most ``currentVersion``).
    public var version: Int64
    /// Which element events are uploaded (`uploadMode`, default ``UploadMode/all``).
    public var uploadMode: UploadMode
    /// Which controllers count as pages (`pageMode`, default ``PageMode/all``).
    public var pageMode: PageMode
    /// The share of devices that capture anything, 0...1 (`sampleRate`, default 1). Decided per
    /// device by ``DeviceSampling``, so a device is either always in or always out.
    public var sampleRate: Double
    /// Event names never sent (`blockedEvents`, default none): `$screen` for page views,
    /// `$screen_leave`, `$element_click`, or a plan event's name.
    public var blockedEvents: Set<String>
    /// Per-kind kill switches (`capture`, default all on).
    public var capture: CaptureSwitches
    /// Controller types never counted as pages in ``PageMode/all`` mode (`ignoredPages`).
    public var ignoredPages: Set<String>
    /// Named pages by controller type name (`pages`).
    public var pages: [String: PageRule]
    /// Named events, in plan order (`events`). When several match one action, the first wins.
    public var events: [PlanEvent]
    /// Which UIKit lists report exposure (`exposureLists`, default ``ExposureLists/marked``).
    public var exposureLists: ExposureLists

    /// Creates a plan; the defaults capture everything and name nothing.
    public init(
        version: Int64 = TrackingPlan.currentVersion, uploadMode: UploadMode = .all,
        pageMode: PageMode = .all,
        sampleRate: Double = 1, blockedEvents: Set<String> = [], capture: CaptureSwitches = CaptureSwitches(),
        ignoredPages: Set<String> = [], pages: [String: PageRule] = [:], events: [PlanEvent] = [],
        exposureLists: ExposureLists = .marked
    ) {
        self.version = version
        self.uploadMode = uploadMode
        self.pageMode = pageMode
        self.sampleRate = sampleRate
        self.blockedEvents = blockedEvents
        self.capture = capture
        self.ignoredPages = ignoredPages
        self.pages = pages
        self.events = events
        self.exposureLists = exposureLists
    }

    /// Which element events are uploaded.
    public enum UploadMode: String, Sendable, Hashable, CaseIterable {
        /// Every element event; those a plan event matches also carry `$event_id` and `$event_name`.
        case all
        /// Only element events a plan event matches (saves bandwidth).
        case matched
    }

    /// Which table and collection views report list exposure.
    public enum ExposureLists: String, Sendable, Hashable, CaseIterable {
        /// Only lists the app marked with a list id or item identities (`footprint.listID`,
        /// `footprint.listItems`).
        case marked
        /// Every list of the app's own (system lists never).
        case all
    }

    /// Which controllers count as pages.
    public enum PageMode: String, Sendable, Hashable, CaseIterable {
        /// Only the controller types named in ``TrackingPlan/pages``, child controllers included;
        /// the UI adapter hooks only those types.
        case configured
        /// Every top-level controller except system containers and ignored types; child
        /// controllers only when named in ``TrackingPlan/pages``.
        case all
    }
}

/// Per-kind kill switches; each is on unless the plan turns it off.
public struct CaptureSwitches: Sendable, Hashable {
    /// Page views (`pages`).
    public var pages: Bool
    /// Control actions: taps and value changes (`controls`).
    public var controls: Bool
    /// Table and collection cell selection (`cells`).
    public var cells: Bool
    /// Gesture recognizers (`gestures`).
    public var gestures: Bool
    /// Alert actions (`alerts`).
    public var alerts: Bool
    /// Configured purpose-method events (`methods`).
    public var methods: Bool
    /// List exposures and skips (`exposures`).
    public var exposures: Bool

    /// Creates switches, all on by default.
    public init(
        pages: Bool = true, controls: Bool = true, cells: Bool = true, gestures: Bool = true,
        alerts: Bool = true,
        methods: Bool = true, exposures: Bool = true
    ) {
        self.pages = pages
        self.controls = controls
        self.cells = cells
        self.gestures = gestures
        self.alerts = alerts
        self.methods = methods
        self.exposures = exposures
    }
}

/// A named page: what a controller type is called in reports, with static properties.
public struct PageRule: Sendable, Hashable {
    /// The page name (`name`, required).
    public var name: String
    /// Properties added to every page view of it (`properties`, default none).
    public var properties: JSONObject

    /// Creates a page rule.
    public init(name: String, properties: JSONObject = [:]) {
        self.name = name
        self.properties = properties
    }
}
