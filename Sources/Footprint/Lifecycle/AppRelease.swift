/// The app's version and build (`CFBundleShortVersionString`, `CFBundleVersion`), as remembered
/// between launches to report installs and updates.
struct AppRelease: Sendable, Hashable {
    /// The marketing version (`2.1`), `nil` when unknown.
    var version: String?
    /// The build (`210`), `nil` when unknown.
    var build: String?

    /// The release the device context describes.
    init(version: String?, build: String?) {
        self.version = version
        self.build = build
    }

    /// `version` and `build`, where known: the lifecycle events' properties.
    var properties: JSONObject {
        var properties: JSONObject = [:]
        if let version { properties["version"] = .string(version) }
        if let build { properties["build"] = .string(build) }
        return properties
    }

    /// The stored form: a JSON object with the fields that are known.
    var stored: String {
        JSONValue.object(properties).description
    }

    /// Reads the stored form; `nil` when it is not one.
    init?(stored: String) {
        guard case .object(let object)? = try? JSONParser().parse(stored) else { return nil }
        version = object["version"]?.stringValue
        build = object["build"]?.stringValue
    }
}
