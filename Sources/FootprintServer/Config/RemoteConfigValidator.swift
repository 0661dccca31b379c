import FootprintWire

/// The one place a remote config document is checked before it is stored and served: it must
/// be a valid tracking plan (`TrackingPlan`, the format the SDK reads), so an SDK never
/// receives a plan it would refuse.
public enum RemoteConfigValidator {
    /// Parses and checks a remote config document.
    /// - Parameter bytes: the document as UTF-8 JSON.
    /// - Returns: the plan and the document as compact JSON.
    /// - Throws: ``ServerError`` with code `invalidConfig`, naming the line (for JSON errors) or
    ///   the key at fault (for plan errors, e.g. `events[3].triggers[0].path`).
    public static func validate(_ bytes: [UInt8]) throws(ServerError) -> (
        plan: TrackingPlan, document: String
    ) {
        let document: JSONValue
        do {
            document = try JSONParser().parse(bytes)
        } catch {
            throw ServerError(code: .invalidConfig, message: "the config is not JSON: \(error)")
        }
        do {
            return (try TrackingPlan(json: document), JSONWriter.string(document))
        } catch {
            throw ServerError(
                code: .invalidConfig, message: "the config is not a valid tracking plan: \(error)")
        }
    }
}
