import FootprintWire

/// Starts and ends connect sessions for the dashboard and the JSON API (both need the admin
/// grant): makes the token, keeps only its hash, and builds the link and its QR code.
///
/// The link is written by `ConnectLinkFormat`, the form the SDK's `Tracker.handle(url:)` reads:
/// `SCHEME://footprint/connect?token=TOKEN` with `&server=URL` when the collector's base URL is
/// given (the SDK then refuses the link unless it is configured for that server).
public struct ConnectSessions: Sendable {
    /// A session just started, with what can be shown only now.
    public struct Started: Sendable, Hashable {
        /// The session.
        public var session: ConnectSession
        /// Its token (`fpc_` and 32 hexadecimal digits: 128 random bits). The store keeps only
        /// its hash: nothing can show it again.
        public var token: String
        /// The link that opens the app into the session.
        public var link: String
        /// The link as a QR code, an inline SVG document.
        public var qrCodeSVG: String
    }

    /// Where sessions are kept, and the events whose clicks they show.
    public let stores: Stores
    /// Lifetimes and how many sessions a project has.
    public let limits: ConnectSession.Limits

    /// Creates the service over `stores`.
    public init(stores: Stores, limits: ConnectSession.Limits = ConnectSession.Limits()) {
        self.stores = stores
        self.limits = limits
    }

    /// Starts a session for `project`.
    /// - Parameters:
    ///   - now: when it starts (the request's time).
    ///   - lifetimeSeconds: how long it stays open; `nil`: ``ConnectSession/Limits/defaultLifetimeSeconds``.
    ///   - urlScheme: the app's custom URL scheme; `nil`: ``defaultScheme(for:)``.
    ///   - serverURL: the collector's base URL the app is configured with, named in the link; `nil`:
    ///     none (the app uses its own).
    /// - Throws: ``ServerError`` `connectSession` for a bad lifetime, scheme or server URL;
    ///   `tooManyConnectSessions` when the project has as many open sessions as it may.
    public func start(
        project: Project, now: Timestamp, lifetimeSeconds: Int64? = nil, urlScheme: String? = nil,
        serverURL: String? = nil
    ) throws(ServerError) -> Started {
        let lifetime = try limits.lifetime(seconds: lifetimeSeconds)
        let token = AccessConfiguration.makeToken(prefix: "fpc_")
        let link = try Self.link(
            token: token, urlScheme: urlScheme ?? Self.defaultScheme(for: project), serverURL: serverURL)
        var drawing = QRCodeSVG()
        drawing.label = "QR code of the connect link"
        let svg = drawing.svg(try QRCode(encoding: link))
        let session = try stores.startConnectSession(
            projectId: project.id, tokenHash: SecretHash(of: token), hint: String(token.prefix(8)), now: now,
            lifetimeSeconds: lifetime, limits: limits)
        return Started(session: session, token: token, link: link, qrCodeSVG: svg)
    }

    /// Ends a session of `project` at `now`; `nil` when it has no such session.
    @discardableResult
    public func end(id: Int64, project: Project, now: Timestamp) throws(ServerError) -> ConnectSession? {
        try stores.metadata.endConnectSession(id: id, projectId: project.id, at: now)
    }

    /// `footprint-` and the project's name in lower case, other characters than letters and
    /// digits as `-`: `footprint-my-shop`.
    public static func defaultScheme(for project: Project) -> String {
        let name = project.name.lowercased().unicodeScalars.map { scalar -> Character in
            scalar.isASCII && (("a"..."z").contains(scalar) || ("0"..."9").contains(scalar))
                ? Character(scalar) : "-"
        }
        return "footprint-" + String(name.prefix(48))
    }

    /// The connect link of `token`.
    /// - Throws: ``ServerError`` `connectSession` when the scheme is not a URL scheme (a letter,
    ///   then letters, digits, `+`, `-`, `.`; at most 64) or the server URL is not `http(s)://…`.
    public static func link(token: String, urlScheme: String, serverURL: String?) throws(ServerError)
        -> String
    {
        let scheme = urlScheme.lowercased()
        let schemeBytes = Array(scheme.utf8)
        let isLetter: (UInt8) -> Bool = { (97...122).contains($0) }
        guard let first = schemeBytes.first, isLetter(first), schemeBytes.count <= 64,
            schemeBytes.allSatisfy({
                isLetter($0) || (48...57).contains($0) || $0 == 43 || $0 == 45 || $0 == 46
            }),
            scheme != "http", scheme != "https"
        else {
            throw ServerError(
                code: .connectSession, message: "\(urlScheme.prefix(64)) is not an app's custom URL scheme")
        }
        var server: String?
        if let serverURL, !serverURL.isEmpty {
            let lowered = serverURL.lowercased()
            guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://"), serverURL.utf8.count <= 512,
                serverURL.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
            else {
                throw ServerError(
                    code: .connectSession,
                    message: "the server URL must be http:// or https://, at most 512 bytes")
            }
            server = serverURL
        }
        return ConnectLinkFormat.customSchemeLink(scheme: scheme, token: token, server: server)
    }
}
