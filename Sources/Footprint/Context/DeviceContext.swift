import FootprintWire
import Foundation

/// What the SDK knows about the library, app, OS and device: sent as `context` on every event.
///
/// ``current`` fills what Foundation knows; the UIKit adapter overwrites the fields it knows
/// better (device model, OS name) before starting the tracker.
public struct DeviceContext: Sendable, Hashable {
    /// `context.library.name`. Default `"footprint-swift"`.
    public var libraryName = "footprint-swift"
    /// `context.library.version`. Default ``DeviceContext/libraryVersion``.
    public var libraryVersionString = DeviceContext.libraryVersion
    /// `context.app.name`: the bundle's display name or the process name.
    public var appName: String?
    /// `context.app.version`: `CFBundleShortVersionString`.
    public var appVersion: String?
    /// `context.app.build`: `CFBundleVersion`.
    public var appBuild: String?
    /// `context.app.namespace`: the bundle identifier.
    public var appNamespace: String?
    /// `context.os.name` (`iOS`, `Linux`, ...).
    public var osName: String?
    /// `context.os.version` (`18.1`).
    public var osVersion: String?
    /// `context.device.model` (`iPhone15,2`).
    public var deviceModel: String?
    /// `context.device.manufacturer`. Default `"Apple"` on Apple platforms.
    public var deviceManufacturer: String?
    /// `context.device.type` (`ios`, `linux`).
    public var deviceType: String?
    /// `context.locale` (`en-US`).
    public var locale: String?
    /// `context.timezone` (`Europe/Paris`).
    public var timezone: String?

    /// The version of this library (``FootprintVersion/current``).
    public static let libraryVersion = FootprintVersion.current

    /// An empty context (library fields only).
    public init() {}

    /// What Foundation knows about the running process and machine.
    public static var current: DeviceContext {
        var context = DeviceContext()
        let info = Bundle.main.infoDictionary ?? [:]
        context.appName =
            (info["CFBundleDisplayName"] as? String) ?? (info["CFBundleName"] as? String)
            ?? ProcessInfo.processInfo.processName
        context.appVersion = info["CFBundleShortVersionString"] as? String
        context.appBuild = info["CFBundleVersion"] as? String
        context.appNamespace = Bundle.main.bundleIdentifier
        let version = ProcessInfo.processInfo.operatingSystemVersion
        context.osVersion = "\(version.majorVersion).\(version.minorVersion).\(version.patchVersion)"
        #if os(iOS)
            context.osName = "iOS"
            context.deviceType = "ios"
        #elseif os(tvOS)
            context.osName = "tvOS"
            context.deviceType = "tvos"
        #elseif os(macOS)
            context.osName = "macOS"
            context.deviceType = "macos"
        #elseif os(Linux)
            context.osName = "Linux"
            context.deviceType = "linux"
        #else
            context.osName = "unknown"
        #endif
        #if canImport(Darwin)
            context.deviceManufacturer = "Apple"
        #endif
        var system = utsname()
        if uname(&system) == 0 {
            context.deviceModel = withUnsafeBytes(of: &system.machine) { bytes in
                String(decoding: bytes.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
        }
        context.locale = Locale.current.identifier.replacingOccurrences(of: "_", with: "-")
        context.timezone = TimeZone.current.identifier
        return context
    }

    /// The `context` object of a message, without the per-event `sessionId`.
    public var json: JSONObject {
        func object(_ pairs: [(String, String?)]) -> JSONValue {
            .object(
                Dictionary(
                    uniqueKeysWithValues: pairs.compactMap { key, value in value.map { (key, .string($0)) } })
            )
        }
        var result: JSONObject = [
            "library": object([("name", libraryName), ("version", libraryVersionString)]),
            "app": object([
                ("name", appName), ("version", appVersion), ("build", appBuild), ("namespace", appNamespace),
            ]),
            "os": object([("name", osName), ("version", osVersion)]),
            "device": object([
                ("model", deviceModel), ("manufacturer", deviceManufacturer), ("type", deviceType),
            ]),
        ]
        if let locale { result["locale"] = .string(locale) }
        if let timezone { result["timezone"] = .string(timezone) }
        return result
    }
}
