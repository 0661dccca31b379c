import Foundation

/// One HTTP request as the SDK makes it.
public struct HTTPRequest: Sendable, Hashable {
    /// `GET` or `POST`.
    public var method: String
    /// The absolute URL.
    public var url: String
    /// Header fields.
    public var headers: [String: String]
    /// The body (empty for `GET`).
    public var body: [UInt8]

    /// Creates a request.
    public init(method: String, url: String, headers: [String: String] = [:], body: [UInt8] = []) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// One HTTP response.
public struct HTTPResponse: Sendable, Hashable {
    /// The status code.
    public var status: Int
    /// Header fields, names in lower case.
    public var headers: [String: String]
    /// The body.
    public var body: [UInt8]

    /// Creates a response; header names are lower-cased.
    public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = Dictionary(
            headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
        self.body = body
    }
}

/// Sends HTTP requests. The SDK's one way to reach the network: uploads and remote config both
/// go through it. ``URLSessionTransport`` is the real one.
public protocol HTTPTransport: Sendable {
    /// Sends `request`; throws on a network failure (no response at all).
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}

extension HTTPRequest {
    /// The `Authorization` header value that carries a write key the Segment way: HTTP Basic,
    /// the key as user name, no password.
    public static func basicAuthorization(writeKey: String) -> String {
        "Basic " + Data("\(writeKey):".utf8).base64EncodedString()
    }

    /// The URL of `path` (`/v1/batch`) on the server whose base URL is `serverURL`, any
    /// trailing `/` of the base left out.
    static func url(_ path: String, on serverURL: String) -> String {
        var base = serverURL
        while base.hasSuffix("/") { base.removeLast() }
        return base + path
    }
}
