import Foundation

/// Reads the write key from an `Authorization` header: HTTP Basic with the key as the username
/// (the Segment convention; the password is ignored), or `Bearer KEY`.
enum WriteKeyCredentials {
    /// The key in `header`, or `nil` when there is none or it cannot be read.
    static func writeKey(authorization header: String?) -> String? {
        guard let header else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2 else { return nil }
        let scheme = parts[0].lowercased()
        let credentials = parts[1].trimmingCharacters(in: .whitespaces)
        if scheme == "bearer" { return credentials.isEmpty ? nil : credentials }
        guard scheme == "basic", let data = Data(base64Encoded: credentials),
            let decoded = String(data: data, encoding: .utf8)
        else { return nil }
        let user = decoded.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return user.isEmpty ? nil : String(user)
    }
}
