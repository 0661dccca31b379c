/// One screen as a device showed it during a connect session: the page, every capturable
/// element with its exact and similar event path, kind, frame, redacted text and plan state,
/// and on iOS a screenshot with private views painted over.
///
/// The SDK builds it (`POST /v1/snapshots` uploads ``jsonBytes``); the server reads it with
/// ``init(jsonBytes:limits:)``, which checks every number and bounds every string and array
/// (``Limits``). Keys are snake_case on the wire; unknown keys are ignored so that newer
/// devices can add some.
public struct ScreenSnapshot: Sendable, Hashable {
    /// The connect session's token (`connect_token`, required).
    public var connectToken: String
    /// The device's id for this snapshot, a UUID (`snapshot_id`, required): a resend keeps it.
    public var snapshotID: String
    /// The device's anonymous id (`anonymous_id`, required).
    public var anonymousID: String
    /// The signed-in user's id, when any (`user_id`).
    public var userID: String?
    /// Footprint's page name (`page`, required).
    public var page: String
    /// The page's own event path, when the SDK has one (`page_path`).
    public var pagePath: String?
    /// The app's marketing version (`app_version`, may be empty).
    public var appVersion: String
    /// The app's build number (`build`, may be empty).
    public var build: String
    /// The operating system version (`os_version`, may be empty).
    public var osVersion: String
    /// The device model identifier, `iPhone15,2` (`device_model`, may be empty).
    public var deviceModel: String
    /// The window's size in points and its scale (`screen`, required).
    public var screen: Screen
    /// When the device took it (`taken_at`, ISO-8601, required).
    public var takenAt: Timestamp
    /// Why it was taken (`trigger`, required).
    public var trigger: Trigger
    /// The capturable elements, back to front (`elements`, may be empty).
    public var elements: [Element]
    /// The screenshot (`image`); absent where there are no pixels (Linux, the demo): the
    /// dashboard then draws a wireframe from the frames.
    public var image: Image?

    /// Creates a snapshot.
    public init(
        connectToken: String, snapshotID: String, anonymousID: String, userID: String? = nil, page: String,
        pagePath: String? = nil, appVersion: String, build: String, osVersion: String, deviceModel: String,
        screen: Screen, takenAt: Timestamp, trigger: Trigger, elements: [Element], image: Image? = nil
    ) {
        self.connectToken = connectToken
        self.snapshotID = snapshotID
        self.anonymousID = anonymousID
        self.userID = userID
        self.page = page
        self.pagePath = pagePath
        self.appVersion = appVersion
        self.build = build
        self.osVersion = osVersion
        self.deviceModel = deviceModel
        self.screen = screen
        self.takenAt = takenAt
        self.trigger = trigger
        self.elements = elements
        self.image = image
    }

    /// Why a snapshot was taken.
    public enum Trigger: String, Sendable, Hashable, CaseIterable {
        /// A page appeared while the connect session was open.
        case pageAppear = "page_appear"
        /// The app asked for one (`Tracker.captureScreen()`).
        case onDemand = "on_demand"
    }

    /// The window's size in points and its scale.
    public struct Screen: Sendable, Hashable {
        /// Width in points (`width`, 1…``Limits/maximumScreenPoints``).
        public var width: Double
        /// Height in points (`height`, 1…``Limits/maximumScreenPoints``).
        public var height: Double
        /// Pixels per point (`scale`, ``Limits/scaleRange``).
        public var scale: Double

        /// Creates a screen size.
        public init(width: Double, height: Double, scale: Double) {
            self.width = width
            self.height = height
            self.scale = scale
        }
    }

    /// A rectangle in window coordinates, in points.
    public struct Frame: Sendable, Hashable {
        /// Left edge (`x`).
        public var x: Double
        /// Top edge (`y`).
        public var y: Double
        /// Width, never negative (`width`).
        public var width: Double
        /// Height, never negative (`height`).
        public var height: Double

        /// Creates a frame.
        public init(x: Double, y: Double, width: Double, height: Double) {
            self.x = x
            self.y = y
            self.width = width
            self.height = height
        }
    }

    /// One capturable element of the screen.
    public struct Element: Sendable, Hashable {
        /// The exact `event_path` a tap on it produces (`path`, starts with `#`).
        public var path: String
        /// The similar path, cell rows written `*` (`similar_path`; equal to ``path`` outside
        /// cells).
        public var similarPath: String
        /// What kind of element it is (`kind`: `button`, `cell`, `switch`, `text_field`, …;
        /// lower-case letters and `_`).
        public var kind: String
        /// Where it is, in window coordinates (`frame`).
        public var frame: Frame
        /// Its redacted text, when it shows any and is not ignored (`text`).
        public var text: String?
        /// Whether the app opted it out of capture, or it is a secure text field (`ignored`):
        /// then it has no text, and on the screenshot it is painted over.
        public var ignored: Bool
        /// Whether a plan event already names it (`planned`).
        public var planned: Bool
        /// The id of that plan event (`plan_entry`).
        public var planEntry: String?

        /// Creates an element.
        public init(
            path: String, similarPath: String, kind: String, frame: Frame, text: String? = nil,
            ignored: Bool = false, planned: Bool = false, planEntry: String? = nil
        ) {
            self.path = path
            self.similarPath = similarPath
            self.kind = kind
            self.frame = frame
            self.text = text
            self.ignored = ignored
            self.planned = planned
            self.planEntry = planEntry
        }
    }

    /// A screenshot of the key window.
    public struct Image: Sendable, Hashable {
        /// The encoding (`format`).
        public var format: Format
        /// Width in pixels (`width`).
        public var width: Int
        /// Height in pixels (`height`).
        public var height: Int
        /// The encoded image (`data`, Base64 on the wire).
        public var data: [UInt8]

        /// Creates an image.
        public init(format: Format, width: Int, height: Int, data: [UInt8]) {
            self.format = format
            self.width = width
            self.height = height
            self.data = data
        }

        /// An image encoding.
        public enum Format: String, Sendable, Hashable, CaseIterable {
            /// JPEG (starts with `FF D8 FF`).
            case jpeg
            /// PNG (starts with the PNG signature).
            case png

            /// Whether `bytes` start the way this format's files do.
            public func hasSignature(_ bytes: [UInt8]) -> Bool {
                switch self {
                case .jpeg: return bytes.starts(with: [0xFF, 0xD8, 0xFF])
                case .png: return bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
                }
            }
        }
    }
}
