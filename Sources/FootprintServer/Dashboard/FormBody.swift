import Foundation

/// Reads `application/x-www-form-urlencoded` bodies and `Cookie` headers.
enum FormBody {
    /// The fields of a form body (the first of a repeated name).
    static func fields(_ body: [UInt8]) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = decode(parts[0])
            if fields[name] == nil { fields[name] = parts.count > 1 ? decode(parts[1]) : "" }
        }
        return fields
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

    private static func decode(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
