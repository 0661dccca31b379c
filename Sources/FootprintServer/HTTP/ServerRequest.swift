import FootprintWire

/// One HTTP request as the server's handler sees it: the whole body already read (and held
/// within ``HTTPServer/Configuration/maximumBodyBytes``).
public struct ServerRequest: Sendable {
    /// `GET`, `POST`, ...
    public var method: String
    /// The path, without the query string (`/v1/batch`).
    public var path: String
    /// The query string's arguments, percent-decoded (the first of a repeated name).
    public var query: [String: String]
    /// Header fields; names in lower case.
    public var headers: [String: String]
    /// The raw body, as sent (still compressed when `Content-Encoding` says so).
    public var body: [UInt8]
    /// When the server began to receive the request.
    public var receivedAt: Timestamp

    /// Creates a request; header names are lower-cased.
    public init(
        method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:],
        body: [UInt8] = [], receivedAt: Timestamp
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = Dictionary(
            headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.body = body
        self.receivedAt = receivedAt
    }
}
