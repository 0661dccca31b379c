import FootprintWire

/// The one place a remote config document is checked before it is stored and served.
public enum RemoteConfigValidator {
    /// Parses and checks a remote config document.
    ///
    /// For now: a JSON object with an integer `version` of at least 1.
    /// - Parameter bytes: the document as UTF-8 JSON.
    /// - Returns: the document and its version.
    public static func validate(_ bytes: [UInt8]) throws(ServerError) -> (document: JSONValue, version: Int64)
    {
        let document: JSONValue
        do {
            document = try JSONParser().parse(bytes)
        } catch {
            throw ServerError(code: .invalidConfig, message: "the config is not JSON: \(error)")
        }
        guard case .object(let members) = document else {
            throw ServerError(code: .invalidConfig, message: "the config must be a JSON object")
        }
        guard case .int(let version)? = members["version"] else {
            throw ServerError(code: .invalidConfig, message: "the config needs an integer \"version\"")
        }
        guard version >= 1 else {
            throw ServerError(code: .invalidConfig, message: "\"version\" must be 1 or more, not \(version)")
        }
        return (document, version)
    }
}
