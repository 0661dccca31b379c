import Foundation

/// Reads the write key from an `Authorization` header: HTTP Basic with the key as the username
/// (the Segment convention; the password is ignored), or `Bearer KEY`; and says where the key
/// goes when a request carries none.
enum WriteKeyCredentials {
    /// What an `Authorization` header holds.
    enum Credential: Sendable, Hashable {
        /// A write key, to look up.
        case key(String)
        /// No header, or one that holds no key.
        case none
        /// HTTP Basic with an empty user and a password: most likely the key, in the wrong
        /// place. It is not read as the key.
        case passwordOnly
    }

    /// What `header` holds.
    static func credential(authorization header: String?) -> Credential {
        guard let header else { return .none }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2 else { return .none }
        let scheme = parts[0].lowercased()
        let credentials = parts[1].trimmingCharacters(in: .whitespaces)
        if scheme == "bearer" { return credentials.isEmpty ? .none : .key(credentials) }
        guard scheme == "basic", let data = Data(base64Encoded: credentials),
            let decoded = String(data: data, encoding: .utf8)
        else { return .none }
        let pair = decoded.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let user = pair.first ?? ""
        if !user.isEmpty { return .key(String(user)) }
        return pair.count == 2 && !pair[1].isEmpty ? .passwordOnly : .none
    }

    /// The key in `header`, or `nil` when there is none or it cannot be read.
    static func writeKey(authorization header: String?) -> String? {
        guard case .key(let key) = credential(authorization: header) else { return nil }
        return key
    }

    /// The `401 missing_write_key` refusal of a request that carries no write key: its message
    /// says where the key goes, and that the Basic password is not that place when `header`
    /// put something there.
    /// - Parameter bodyKeyAccepted: whether the endpoint also reads `"writeKey"` from the body
    ///   (the ingest endpoints do; `/v1/config` and `/v1/snapshots` do not).
    static func missingKey(authorization header: String?, bodyKeyAccepted: Bool) -> Refusal {
        let places =
            bodyKeyAccepted
            ? "as the HTTP Basic user (base64 of \"KEY:\"), as \"Authorization: Bearer KEY\" or as \"writeKey\" in the body"
            : "as the HTTP Basic user (base64 of \"KEY:\") or as \"Authorization: Bearer KEY\""
        let message =
            credential(authorization: header) == .passwordOnly
            ? "the HTTP Basic user is empty and the password is not read: send the write key \(places)"
            : "send the write key \(places)"
        return Refusal(401, "missing_write_key", message)
    }
}
