import Footprint
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The SDK's transport seam (`HTTPTransport`) over URLSession: a standard HTTP client (libcurl on
/// Linux) talking to the real server, with the SDK's wire format.
struct URLSessionTestTransport: HTTPTransport {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var urlRequest = URLRequest(url: URL(string: request.url)!)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        if !request.body.isEmpty { urlRequest.httpBody = Data(request.body) }
        let (data, response) = try await URLSession.shared.data(for: urlRequest)
        let http = response as! HTTPURLResponse
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name] = value }
        }
        return HTTPResponse(status: http.statusCode, headers: headers, body: Array(data))
    }
}
