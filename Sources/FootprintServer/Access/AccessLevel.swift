/// What a request may do, from its bearer token or dashboard session.
public enum AccessLevel: Int, Sendable, Comparable {
    /// Nothing: no token, a write key or an unknown token.
    case none
    /// Read reports.
    case read
    /// Read, and change definitions and remote config.
    case admin

    public static func < (lhs: AccessLevel, rhs: AccessLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The level of an `Authorization: Bearer TOKEN` header among the server-wide tokens
    /// (admin and read); project read tokens are the store's (``AccessGrant``).
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

/// What a bearer token lets a request do, and where: the server-wide admin and read tokens
/// reach every project; a project read token only its own.
public struct AccessGrant: Sendable, Hashable {
    /// What it may do.
    public var level: AccessLevel
    /// The one project it reaches; `nil`: every project.
    public var project: Project?

    /// Creates a grant.
    public init(level: AccessLevel, project: Project? = nil) {
        self.level = level
        self.project = project
    }

    /// The grant of an `Authorization: Bearer TOKEN` header: a server-wide token's, else a
    /// project read token's from `store` (looked up by its hash), else ``AccessLevel/none``.
    static func of(authorization: String?, access: AccessConfiguration, store: (any AccessStore)?)
        throws(ServerError) -> AccessGrant
    {
        let level = AccessLevel.of(authorization: authorization, access: access)
        if level > .none { return AccessGrant(level: level) }
        guard let store, let token = AccessLevel.bearerToken(authorization), token.utf8.count <= 256,
            let project = try store.project(readTokenHash: SecretHash(of: token))
        else {
            return AccessGrant(level: .none)
        }
        return AccessGrant(level: .read, project: project)
    }
}
