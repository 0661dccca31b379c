/// What a request may do, from its bearer token or dashboard session.
public enum AccessLevel: Int, Sendable, Comparable {
    /// Nothing: no token, a write key or an unknown token.
    case none
    /// Read reports.
    case read
    /// Read, and change definitions and remote config.
    case admin

    public static func < (lhs: AccessLevel, rhs: AccessLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The level of an `Authorization: Bearer TOKEN` header.
    static func of(authorization: String?, access: AccessConfiguration) -> AccessLevel {
        guard let token = bearerToken(authorization) else { return .none }
        if AccessConfiguration.constantTimeEquals(token, access.adminToken) { return .admin }
        if AccessConfiguration.constantTimeEquals(token, access.readToken) { return .read }
        return .none
    }

    /// The token of an `Authorization: Bearer TOKEN` header; `nil` for none or another scheme.
    static func bearerToken(_ authorization: String?) -> String? {
        guard let authorization, authorization.lowercased().hasPrefix("bearer ") else { return nil }
        return String(authorization.dropFirst(7)).trimmingSpaces
    }
}
