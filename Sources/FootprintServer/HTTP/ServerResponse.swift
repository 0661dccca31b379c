import FootprintWire

/// One HTTP response made by the server's handler.
public struct ServerResponse: Sendable {
    /// The status code.
    public var status: Int
    /// Header fields.
    public var headers: [String: String]
    /// The body.
    public var body: [UInt8]

    /// Creates a response.
    public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response whose body is `json`, with `Content-Type: application/json`.
    public static func json(_ status: Int, _ json: JSONValue, headers: [String: String] = [:])
        -> ServerResponse
    {
        var headers = headers
        headers["Content-Type"] = "application/json"
        return ServerResponse(status: status, headers: headers, body: JSONWriter.bytes(json))
    }

    /// An error response: `{"error": code, "message": message}`.
    public static func error(
        _ status: Int, code: String, message: String, headers: [String: String] = [:]
    ) -> ServerResponse {
        .json(status, ["error": .string(code), "message": .string(message)], headers: headers)
    }
}
