import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Why a request could not be made at all.
public struct TransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public var code: Code
    /// Details for people.
    public var message: String

    /// Creates an error.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// The kinds of failure; new codes may be added.
    public typealias Code = ErrorCode<TransportError>

    public var description: String { "\(code): \(message)" }
}

extension ErrorCode where Domain == TransportError {
    /// The URL cannot be parsed.
    public static var invalidURL: Self { Self("invalid_url") }
    /// No response: connection refused, timed out, DNS failure, TLS failure...
    public static var network: Self { Self("network") }
}

/// The real ``HTTPTransport``: `URLSession` (FoundationNetworking on Linux), ephemeral (no
/// cookies, no cache).
public struct URLSessionTransport: HTTPTransport {
    private let session: URLSession

    /// Creates a transport.
    /// - Parameter timeoutSeconds: how long a request may wait for data. Default 30.
    public init(timeoutSeconds: Double = 30) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeoutSeconds
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        configuration.httpMaximumConnectionsPerHost = 1
        session = URLSession(configuration: configuration)
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let url = URL(string: request.url), url.scheme != nil else {
            throw TransportError(code: .invalidURL, message: "not a URL: \(request.url)")
        }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        if !request.body.isEmpty { urlRequest.httpBody = Data(request.body) }
        return try await withCheckedThrowingContinuation { continuation in
            let task = session.dataTask(with: urlRequest) { data, response, error in
                guard let http = response as? HTTPURLResponse else {
                    let reason = error.map { "\($0.localizedDescription)" } ?? "no HTTP response"
                    continuation.resume(throwing: TransportError(code: .network, message: reason))
                    return
                }
                var headers: [String: String] = [:]
                for (name, value) in http.allHeaderFields {
                    if let name = name as? String, let value = value as? String { headers[name] = value }
                }
                continuation.resume(
                    returning: HTTPResponse(
                        status: http.statusCode, headers: headers, body: data.map { Array($0) } ?? []))
            }
            task.resume()
        }
    }
}
