import Foundation

/// Asks the server for the plan: `GET <endpoint>/v1/config`, the write key as HTTP Basic user,
/// `If-None-Match` when an ETag is known. Thin: what a response means is decided by
/// ``RemoteConfigRefresh``.
public struct RemoteConfigFetcher: Sendable {
    private let transport: any HTTPTransport
    /// The full URL of the configuration endpoint.
    public let url: String
    private let authorization: String

    /// Creates a fetcher.
    /// - Parameters:
    ///   - transport: how requests are sent.
    ///   - endpoint: the server's base URL (`https://footprint.example.com`).
    ///   - writeKey: the project's write key.
    public init(transport: any HTTPTransport, endpoint: String, writeKey: String) {
        self.transport = transport
        url = HTTPRequest.url("/v1/config", on: endpoint)
        authorization = HTTPRequest.basicAuthorization(writeKey: writeKey)
    }

    /// The request for the plan.
    public func request(ifNoneMatch etag: String?) -> HTTPRequest {
        var headers = ["Authorization": authorization, "Accept": "application/json"]
        if let etag { headers["If-None-Match"] = etag }
        return HTTPRequest(method: "GET", url: url, headers: headers)
    }

    /// Sends the request.
    /// - Throws: what the transport throws when no response came.
    public func fetch(ifNoneMatch etag: String?) async throws -> HTTPResponse {
        try await transport.send(request(ifNoneMatch: etag))
    }
}
