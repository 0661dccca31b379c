import Foundation

/// Reads `application/x-www-form-urlencoded` bodies and `Cookie` headers.
enum FormBody {
    /// The fields of a form body, decoded as a query string is (``RequestTarget/fields(_:code:)``).
    /// - Throws: `invalid_query` naming a field that cannot be decoded or is given twice.
    static func fields(_ body: [UInt8]) throws(ServerError) -> [String: String] {
        try RequestTarget.fields(body, code: .invalidQuery)
    }

    /// The cookies of a `Cookie` header.
    static func cookies(_ header: String?) -> [String: String] {
        var cookies: [String: String] = [:]
        for part in (header ?? "").split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            let name = String(pair[0]).trimmingSpaces
            if cookies[name] == nil { cookies[name] = String(pair[1]).trimmingSpaces }
        }
        return cookies
    }
}
