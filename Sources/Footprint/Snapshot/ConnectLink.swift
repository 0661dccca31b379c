import Foundation

/// A connect link: what the dashboard shows (as a link and a QR code) to start a connect
/// session, and what ``Tracker/handle(url:referringApplication:)`` recognises. The server writes
/// it with ``ConnectLinkFormat``.
///
/// Two forms, both with the session's token in `token` and, optionally, the collector's base
/// URL in `server`:
/// - the app's custom URL scheme, host `footprint`, path `/connect`:
///   `myshop://footprint/connect?token=T&server=https%3A%2F%2Fcollect.example.com`;
/// - a universal link whose path ends in `/footprint/connect`:
///   `https://links.example.com/footprint/connect?token=T&server=…`.
///
/// The SDK never sends a snapshot anywhere but its own configured server: a link whose `server`
/// is not that server is refused (it was made for another installation).
public struct ConnectLink: Sendable, Hashable {
    /// The connect session's token: printable ASCII without spaces, 16 to 256 bytes.
    public var token: String
    /// The collector's base URL the link names, when it names one.
    public var server: String?

    /// Creates a link.
    public init(token: String, server: String? = nil) {
        self.token = token
        self.server = server
    }

    /// The shortest token accepted, in bytes.
    public static let minimumTokenBytes = 16
    /// The longest token accepted, in bytes.
    public static let maximumTokenBytes = 256

    /// Reads a connect link; `nil` when `url` is not one (any other deep link) or its token is
    /// missing or malformed.
    public init?(url: URL) {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let scheme = components.scheme?.lowercased()
        else { return nil }
        let host = components.host?.lowercased()
        let path = components.path
        let isCustomScheme = host == ConnectLinkFormat.host && path == ConnectLinkFormat.path
        let isUniversalLink =
            scheme == "https" && path.hasSuffix("/" + ConnectLinkFormat.host + ConnectLinkFormat.path)
        guard isCustomScheme || isUniversalLink else { return nil }
        let items = components.queryItems ?? []
        guard let token = items.first(where: { $0.name == "token" })?.value,
            (Self.minimumTokenBytes...Self.maximumTokenBytes).contains(token.utf8.count),
            token.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
        else { return nil }
        self.token = token
        server = items.first(where: { $0.name == "server" })?.value.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Whether the link may be used with a tracker configured for `serverURL`: it names no
    /// server, or the same one (scheme and host compared without case, trailing `/` ignored).
    public func isFor(serverURL: String) -> Bool {
        guard let server else { return true }
        return Self.normalized(server) == Self.normalized(serverURL)
    }

    private static func normalized(_ url: String) -> String {
        var text = url.trimmingCharacters(in: .whitespaces)
        while text.hasSuffix("/") { text.removeLast() }
        guard var components = URLComponents(string: text) else { return text }
        components.scheme = components.scheme?.lowercased()
        components.host = components.host?.lowercased()
        return components.string ?? text
    }
}
