import FootprintWire

/// `POST /v1/snapshots`: a device in a connect session uploads one screen snapshot.
///
/// Both the project's write key (HTTP Basic username or `Bearer`, as for `/v1/batch`; never in
/// the body) and the session's token (`connect_token` in the body and/or the
/// `Footprint-Connect-Token` header) are checked.
/// Answers: `201` stored, `200` already stored (a resend of the same `snapshot_id`), `400`
/// malformed (with the field at fault), `401` bad write key, `403` token missing, unknown or of
/// another project, `410` session ended or expired, `413` body or image too large, `415` unknown
/// encoding, `429` with `Retry-After` past the session's upload rate, `503` store unavailable.
/// Nothing is stored on any refusal.
public final class SnapshotUploadAPI: Sendable {
    /// Upload settings.
    public struct Configuration: Sendable {
        /// The largest body, after gzip inflation. Default 4 MiB (a 1 MiB image is about 1.4 MB
        /// of Base64).
        public var maximumBodyBytes = 4 << 20
        /// The largest image after Base64 decoding. Default 1 MiB.
        public var maximumImageBytes = 1 << 20
        /// The bounds every other field is checked against (the body and image caps above take
        /// precedence). Default ``ScreenSnapshot/Limits/init()``.
        public var snapshotLimits = ScreenSnapshot.Limits()
        /// Uploads per connect session. Default 2 a second, 10 at once.
        public var uploadsPerSession = RateLimiter.Rate(requestsPerSecond: 2, burst: 10)
        /// How many snapshots are kept. Default ``SnapshotRetention/init()``.
        public var retention = SnapshotRetention()
        /// Creates the default configuration.
        public init() {}
    }

    /// The path it serves.
    public static let path = "/v1/snapshots"
    /// The header that may carry the connect token.
    public static let tokenHeader = "footprint-connect-token"

    private let stores: Stores
    private let configuration: Configuration
    private let limiter: LockedValue<RateLimiter>
    private let metrics: ServerMetrics

    /// Creates the API: write keys, sessions and snapshots are looked up in the metadata store.
    /// - Parameter metrics: where uploads are counted, stored or refused by reason (default:
    ///   counters of its own).
    public init(
        stores: Stores, configuration: Configuration = Configuration(),
        metrics: ServerMetrics = ServerMetrics()
    ) {
        self.stores = stores
        self.configuration = configuration
        self.metrics = metrics
        limiter = LockedValue(RateLimiter(rate: configuration.uploadsPerSession))
    }

    /// Whether `request` is an upload (`POST /v1/snapshots`, with or without a final `/`).
    public static func takes(_ request: ServerRequest) -> Bool {
        request.path == path || request.path == path + "/"
    }

    /// Answers one upload.
    public func handle(_ request: ServerRequest) -> ServerResponse {
        guard request.method == "POST" else {
            return .error(405, code: "method_not_allowed", message: "use POST", headers: ["Allow": "POST"])
        }
        do {
            let write = try upload(request)
            metrics.countSnapshot(created: write.created)
            return .json(
                write.created ? 201 : 200,
                [
                    "id": .int(write.id), "created": .bool(write.created),
                    "dropped": .int(Int64(write.dropped)),
                ])
        } catch let refusal as Refusal {
            metrics.countSnapshotRefused(reason: refusal.code)
            return refusal.response
        } catch let error as ServerError {
            metrics.countSnapshotRefused(reason: error.code.name)
            return .error(503, code: error.code.name, message: error.message, headers: ["Retry-After": "5"])
        } catch {
            metrics.countSnapshotRefused(reason: "internal")
            return .error(500, code: "internal", message: "\(error)")
        }
    }

    private func upload(_ request: ServerRequest) throws -> SnapshotWrite {
        // 1. The write key, before any body work.
        let authorization = request.headers["authorization"]
        guard let key = WriteKeyCredentials.writeKey(authorization: authorization) else {
            throw WriteKeyCredentials.missingKey(authorization: authorization, bodyKeyAccepted: false)
        }
        guard let project = try stores.metadata.project(writeKey: key) else {
            throw Refusal(401, "unknown_write_key", "the write key is not known")
        }
        // 2. The body, within its cap.
        var root = try Self.document(request, configuration: configuration)
        // 3. The connect session: the header's token, the body's, or both when they agree.
        let token = try Self.token(header: request.headers[Self.tokenHeader], body: root)
        let session = try activeSession(token: token, project: project, now: request.receivedAt)
        // 4. The session's upload rate.
        let decision = limiter.withLock { limiter in
            if limiter.keyCount > 10_000 { limiter.forgetFullBuckets(now: request.receivedAt) }
            return limiter.admit(key: String(session.id), now: request.receivedAt)
        }
        if case .deny(let seconds) = decision {
            throw Refusal(
                429, "rate_limited", "too many snapshots in this connect session; retry after \(seconds) s",
                headers: ["Retry-After": String(seconds)])
        }
        // 5. The snapshot itself, every field checked.
        root["connect_token"] = .string(token)
        let snapshot = try Self.snapshot(root, configuration: configuration)
        return try stores.metadata.storeSnapshot(
            Self.record(snapshot, project: project, session: session, receivedAt: request.receivedAt),
            retention: configuration.retention)
    }

    /// The request's body as a JSON object, inflated within the body cap; throws a ``Refusal``
    /// (`413`, `415`, `400`).
    package static func document(_ request: ServerRequest, configuration: Configuration) throws -> JSONObject
    {
        var bodyLimits = IngestAPI.Configuration()
        bodyLimits.maximumDecompressedBytes = configuration.maximumBodyBytes
        let body = try IngestAPI.decompressedBody(request, configuration: bodyLimits)
        let json: JSONValue
        do {
            // The document nests four levels deep (root, elements, element, frame).
            json = try JSONParser(maximumDepth: 8).parse(body)
        } catch {
            throw Refusal(400, "invalid_json", "the body is not valid JSON: \(error)")
        }
        guard case .object(let root) = json else {
            throw Refusal(400, "invalid_snapshot", "the snapshot must be a JSON object")
        }
        return root
    }

    /// The connect token of an upload: the header's, the body's, or both when they agree;
    /// throws a `400` or `403` ``Refusal``.
    package static func token(header: String?, body root: JSONObject) throws -> String {
        let headerToken = header.map(\.trimmingSpaces).flatMap { $0.isEmpty ? nil : $0 }
        let bodyToken = root["connect_token"]?.stringValue
        if let headerToken, let bodyToken, headerToken != bodyToken {
            throw Refusal(
                400, "conflicting_connect_token",
                "the Footprint-Connect-Token header and connect_token in the body differ")
        }
        guard let token = headerToken ?? bodyToken, !token.isEmpty else {
            throw Refusal(
                403, "missing_connect_token",
                "send the connect session's token as connect_token or in the Footprint-Connect-Token header")
        }
        return token
    }

    /// The snapshot `root` holds, every field checked against the configured limits; throws a
    /// `413` (image too large) or `400` ``Refusal`` naming the field at fault.
    package static func snapshot(_ root: JSONObject, configuration: Configuration) throws -> ScreenSnapshot {
        var limits = configuration.snapshotLimits
        limits.maximumImageBytes = configuration.maximumImageBytes
        do {
            return try ScreenSnapshot(json: .object(root), limits: limits)
        } catch {
            let status = error.code == .imageTooLarge || error.code == .documentTooLarge ? 413 : 400
            throw Refusal(status, status == 413 ? error.code.name : "invalid_snapshot", error.description)
        }
    }

    /// The session of `token` if it is open and the project's; else a 403 or 410 refusal.
    private func activeSession(token: String, project: Project, now: Timestamp) throws -> ConnectSession {
        guard token.utf8.count <= 256,
            let session = try stores.metadata.connectSession(tokenHash: SecretHash(of: token)),
            session.projectId == project.id
        else {
            // Another project's token is answered like an unknown one.
            throw Refusal(403, "unknown_connect_token", "the connect token is not one of this project's")
        }
        switch session.state(at: now) {
        case .open: return session
        case .ended: throw Refusal(410, "connect_session_ended", "the connect session was ended")
        case .expired: throw Refusal(410, "connect_session_expired", "the connect session expired")
        }
    }

    /// What the store keeps of a validated snapshot: its document without the token and the
    /// image's bytes, which are kept apart.
    package static func record(
        _ snapshot: ScreenSnapshot, project: Project, session: ConnectSession, receivedAt: Timestamp
    )
        -> SnapshotRecord
    {
        var document = snapshot.jsonValue.objectValue ?? [:]
        document["connect_token"] = nil
        if let image = snapshot.image {
            document["image"] = [
                "format": .string(image.format.rawValue), "width": .int(Int64(image.width)),
                "height": .int(Int64(image.height)), "bytes": .int(Int64(image.data.count)),
            ]
        }
        return SnapshotRecord(
            projectId: project.id, connectSessionId: session.id, snapshotId: snapshot.snapshotID,
            anonymousId: snapshot.anonymousID, userId: snapshot.userID, page: snapshot.page,
            appVersion: snapshot.appVersion, takenAt: snapshot.takenAt, receivedAt: receivedAt,
            elementCount: snapshot.elements.count, document: JSONWriter.string(.object(document)),
            image: snapshot.image.map {
                SnapshotImage(format: $0.format.rawValue, width: $0.width, height: $0.height, data: $0.data)
            })
    }
}
