/// Where a class's code comes from, as the UI adapter reads it from the Objective-C runtime.
public struct ClassOrigin: Sendable, Hashable {
    /// The runtime name (`NSStringFromClass`): `MyApp.HomeViewController` or a mangled
    /// `_TtC5MyApp4Home` for Swift classes, `UITableView` for Objective-C ones.
    public var runtimeName: String
    /// The path of the binary image that defines it (`class_getImageName`); `nil` when not known.
    public var imagePath: String?

    /// Describes a class's origin.
    public init(runtimeName: String, imagePath: String?) {
        self.runtimeName = runtimeName
        self.imagePath = imagePath
    }

    /// The Swift module of a Swift class (`MyApp` for `MyApp.Home` and `_TtC5MyApp4Home`), `nil`
    /// for an Objective-C class.
    public var swiftModule: String? {
        let utf8 = Array(runtimeName.utf8)
        if runtimeName.hasPrefix("_Tt") {
            var index = 3
            while index < utf8.count, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(utf8[index]) {
                index += 1
            }
            var length = 0
            while index < utf8.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(utf8[index]) {
                length = length * 10 + Int(utf8[index] - UInt8(ascii: "0"))
                guard length <= utf8.count else { return nil }
                index += 1
            }
            guard length > 0, index + length <= utf8.count else { return nil }
            return String(decoding: utf8[index..<(index + length)], as: UTF8.self)
        }
        guard let dot = utf8.firstIndex(of: UInt8(ascii: ".")), dot > 0 else { return nil }
        return String(decoding: utf8[..<dot], as: UTF8.self)
    }
}

/// Which code is the app's own, the only code Footprint changes on a plan's say-so (purpose
/// methods) or wraps (list delegates): classes whose binary lies inside the app's bundle (the
/// executable and its embedded frameworks), and Swift classes of the modules the app names.
/// Everything else (UIKit, other system frameworks) is the system's.
public struct AppCode: Sendable, Hashable {
    /// The app bundle's path (`Bundle.main.bundlePath`).
    public var bundlePath: String
    /// Swift module names whose classes count as the app's (the executable's module and
    /// ``UIKitCaptureConfiguration``'s additional modules).
    public var modules: Set<String>

    /// Describes the app's code.
    public init(bundlePath: String, modules: Set<String>) {
        self.bundlePath = bundlePath
        self.modules = modules
    }

    /// Whether the class described by `origin` is the app's.
    public func owns(_ origin: ClassOrigin) -> Bool {
        if let image = origin.imagePath, !bundlePath.isEmpty {
            let folder = bundlePath.hasSuffix("/") ? bundlePath : bundlePath + "/"
            if image.hasPrefix(folder) { return true }
        }
        if let module = origin.swiftModule, modules.contains(module) { return true }
        return false
    }
}
