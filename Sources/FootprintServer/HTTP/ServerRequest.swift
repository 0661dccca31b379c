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
    /// The IP address of the client's end of the connection, as text (`127.0.0.1`,
    /// `2001:db8::1`; an IPv4 client of an IPv6 listener as IPv4); `nil` when unknown (a request
    /// made in process). Behind a reverse proxy, the proxy's address, unless the proxy is one of
    /// ``HTTPServer/Configuration/trustedProxies``: then the client address it reports in
    /// `X-Forwarded-For`.
    public var clientAddress: String?
    /// The IP address of the connection's other end, whatever a proxy reports (the same as
    /// ``clientAddress`` unless the peer is a trusted proxy): what address-based access, such as
    /// `GET /metrics` for listed addresses, checks.
    public var peerAddress: String?

    /// Creates a request; header names are lower-cased.
    /// - Parameter peerAddress: the connection's own peer; default `clientAddress`.
    public init(
        method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:],
        body: [UInt8] = [], receivedAt: Timestamp, clientAddress: String? = nil, peerAddress: String? = nil
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = Dictionary(
            headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.body = body
        self.receivedAt = receivedAt
        self.clientAddress = clientAddress
        self.peerAddress = peerAddress ?? clientAddress
    }
}
