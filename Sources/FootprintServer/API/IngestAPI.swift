import FootprintWire

/// The HTTP API: routes each request, authenticates the write key, decodes, validates and
/// stores events, and serves remote config. Never blocks on a commit: an ingest is answered from
/// the store's writer once its batch is durable.
public final class IngestAPI: Sendable {
    /// API settings.
    public struct Configuration: Sendable {
        /// Requests per write key, or `nil` for no limit (default).
        public var rateLimit: RateLimiter.Rate?
        /// The largest body after decompression. Default 5 MB.
        public var maximumDecompressedBytes = MessageLimits.maximumRequestBytes
        /// The largest decompressed/compressed ratio accepted (a gzip bomb goes past it).
        /// Default 200 (JSON batches compress 5–20×).
        public var maximumCompressionRatio = 200
        /// Creates the default configuration.
        public init() {}
    }

    private let stores: Stores
    private let configuration: Configuration
    private let limiter: LockedValue<RateLimiter>?
    private let metrics: ServerMetrics

    /// Creates the API over `stores`.
    /// - Parameter metrics: where events and commits are counted (default: counters of its own).
    public init(
        stores: Stores, configuration: Configuration = Configuration(),
        metrics: ServerMetrics = ServerMetrics()
    ) {
        self.stores = stores
        self.configuration = configuration
        self.metrics = metrics
        self.limiter = configuration.rateLimit.map { LockedValue(RateLimiter(rate: $0)) }
    }

    /// The ingest paths and the message type each implies (`nil`: a batch).
    private static let ingestTypes: [String: MessageType?] = [
        "/v1/batch": nil, "/v1/import": nil, "/v1/track": .track, "/v1/screen": .screen, "/v1/page": .page,
        "/v1/identify": .identify, "/v1/alias": .alias, "/v1/group": .group,
    ]

    /// Whether `path` takes events (`/v1/batch`, `/v1/track`, ...), so its body needs decoding.
    public static func takesEvents(_ path: String) -> Bool {
        ingestTypes[path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path] != nil
    }

    /// Answers one request through `responder`: an ingest once its batch is committed (from the
    /// store's writer thread), anything else at once.
    public func handle(_ request: ServerRequest, responder: ServerResponder) {
        let path =
            request.path.count > 1 && request.path.hasSuffix("/")
            ? String(request.path.dropLast()) : request.path
        if let impliedType = Self.ingestTypes[path] {
            guard request.method == "POST" else { return responder.respond(methodNotAllowed("POST")) }
            return ingest(request, impliedType: impliedType, responder: responder)
        }
        responder.respond(answer(request, path: path))
    }

    private func answer(_ request: ServerRequest, path: String) -> ServerResponse {
        switch path {
        case "/health":
            guard request.method == "GET" || request.method == "HEAD" else { return methodNotAllowed("GET") }
            return .json(200, ["status": "ok"])
        case "/v1/config":
            guard request.method == "GET" || request.method == "HEAD" else { return methodNotAllowed("GET") }
            return remoteConfig(request)
        default:
            return .error(
                404, code: "not_found", message: "no endpoint \(request.method) \(path.prefix(200))")
        }
    }

    private func methodNotAllowed(_ allowed: String) -> ServerResponse {
        .error(405, code: "method_not_allowed", message: "use \(allowed)", headers: ["Allow": allowed])
    }

    private func ingest(_ request: ServerRequest, impliedType: MessageType?, responder: ServerResponder) {
        // A group commit about to start may wait for this batch while it is decoded.
        stores.events.preparingWrite {
            decodeAndWrite(request, impliedType: impliedType, responder: responder)
        }
    }

    private func decodeAndWrite(
        _ request: ServerRequest, impliedType: MessageType?, responder: ServerResponder
    ) {
        let batch: IngestBatch
        let decoded: IngestDecoder.Decoded
        do {
            (batch, decoded) = try decode(request, impliedType: impliedType)
        } catch let refusal as Refusal {
            return responder.respond(refusal.response)
        } catch {
            return responder.respond(Self.unavailable(error))
        }
        let accepted = batch.events.count
        let timing = metrics.beginCommit()
        stores.events.write(batch) { [metrics] result in
            metrics.endCommit(timing)
            switch result {
            case .success(let outcome):
                let rejections = Self.rejections(decoded, refused: outcome.refused, of: batch)
                metrics.countEvents(
                    stored: outcome.stored, duplicates: outcome.duplicates, rejected: rejections.count)
                responder.respond(
                    .json(
                        200,
                        [
                            "success": .bool(rejections.isEmpty),
                            "accepted": .int(Int64(accepted - outcome.refused.count)),
                            "stored": .int(Int64(outcome.stored)),
                            "duplicates": .int(Int64(outcome.duplicates)), "rejected": .array(rejections),
                        ]))
            case .failure(let error):
                responder.respond(Self.unavailable(error))
            }
        }
    }

    /// The per-event rejections of a request: those of decoding, and the events the store
    /// refused as a deleted person's (`deleted_person`), each with its index in the request.
    private static func rejections(_ decoded: IngestDecoder.Decoded, refused: [Int], of batch: IngestBatch)
        -> [JSONValue]
    {
        var rejections = decoded.rejections.map { rejection in
            (
                index: rejection.index, messageId: rejection.messageId, code: rejection.code,
                reason: rejection.reason
            )
        }
        if !refused.isEmpty {
            // The accepted events are the request's messages that decoding did not reject, in order.
            let rejected = Set(decoded.rejections.map(\.index))
            let accepted = (0..<(batch.events.count + rejected.count)).filter { !rejected.contains($0) }
            for index in refused where index < accepted.count {
                rejections.append(
                    (
                        accepted[index], batch.events[index].messageId, "deleted_person",
                        "this person was deleted; its events are refused for a while"
                    ))
            }
            rejections.sort { $0.index < $1.index }
        }
        return rejections.map { rejection in
            var item: JSONObject = [
                "index": .int(Int64(rejection.index)), "code": .string(rejection.code),
                "reason": .string(rejection.reason),
            ]
            if let messageId = rejection.messageId { item["messageId"] = .string(messageId) }
            return .object(item)
        }
    }

    private static func unavailable(_ error: any Error) -> ServerResponse {
        guard let error = error as? ServerError else {
            return .error(500, code: "internal", message: "\(error)")
        }
        return .error(503, code: "unavailable", message: error.message, headers: ["Retry-After": "5"])
    }

    /// The batch a request carries, after authentication, decompression and validation.
    private func decode(_ request: ServerRequest, impliedType: MessageType?) throws -> (
        IngestBatch, IngestDecoder.Decoded
    ) {
        let headerKey = WriteKeyCredentials.writeKey(authorization: request.headers["authorization"])
        var project: Project?
        if let headerKey {
            project = try authenticate(headerKey, at: request.receivedAt)
        }
        let body = try Self.decompressedBody(request, configuration: configuration)
        let json: JSONValue
        do {
            json = try JSONParser().parse(body)
        } catch {
            throw Refusal(400, "invalid_json", "the body is not valid JSON: \(error)")
        }
        let decoded: IngestDecoder.Decoded
        do {
            decoded = try IngestDecoder.decode(json, impliedType: impliedType, receivedAt: request.receivedAt)
        } catch {
            throw Refusal(400, "invalid_body", error.message)
        }
        if project == nil {
            guard let bodyKey = decoded.writeKey, !bodyKey.isEmpty else {
                throw WriteKeyCredentials.missingKey(
                    authorization: request.headers["authorization"], bodyKeyAccepted: true)
            }
            project = try authenticate(bodyKey, at: request.receivedAt)
        }
        guard let project else { throw Refusal(401, "unknown_write_key", "the write key is not known") }
        let batch = IngestBatch(
            projectId: project.id, events: decoded.events, identityLinks: decoded.identityLinks,
            evictedCount: decoded.evictedCount, batchKey: decoded.batchKey, receivedAt: request.receivedAt)
        return (batch, decoded)
    }

    private func remoteConfig(_ request: ServerRequest) -> ServerResponse {
        do {
            let authorization = request.headers["authorization"]
            guard let key = WriteKeyCredentials.writeKey(authorization: authorization) else {
                throw WriteKeyCredentials.missingKey(authorization: authorization, bodyKeyAccepted: false)
            }
            let project = try authenticate(key, at: request.receivedAt)
            guard let config = try stores.metadata.latestConfig(projectId: project.id) else {
                return .error(404, code: "no_config", message: "the project has no published config")
            }
            let headers = ["ETag": config.etag, "Cache-Control": "no-cache"]
            let tags = (request.headers["if-none-match"] ?? "").split(separator: ",").map { part in
                let tag = String(part).trimmingSpaces
                return tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag
            }
            if tags.contains(config.etag) || tags.contains("*") {
                return ServerResponse(status: 304, headers: headers)
            }
            var response = ServerResponse(status: 200, headers: headers, body: Array(config.document.utf8))
            response.headers["Content-Type"] = "application/json"
            return response
        } catch let refusal as Refusal {
            return refusal.response
        } catch {
            return .error(503, code: "unavailable", message: "\(error)", headers: ["Retry-After": "5"])
        }
    }

    /// The project of `key`, after the rate limit; throws a 401 or 429 refusal.
    private func authenticate(_ key: String, at now: Timestamp) throws -> Project {
        guard let project = try stores.metadata.project(writeKey: key) else {
            throw Refusal(401, "unknown_write_key", "the write key is not known")
        }
        if let limiter, case .deny(let seconds) = limiter.withLock({ $0.admit(key: key, now: now) }) {
            throw Refusal(
                429, "rate_limited", "too many requests for this write key; retry after \(seconds) s",
                headers: ["Retry-After": String(seconds)])
        }
        return project
    }

    /// The body as sent, inflated when `Content-Encoding` says gzip; throws a ``Refusal``.
    package static func decompressedBody(_ request: ServerRequest, configuration: Configuration) throws
        -> [UInt8]
    {
        let encoding = (request.headers["content-encoding"] ?? "identity").lowercased()
        switch encoding {
        case "identity", "":
            if request.body.count > configuration.maximumDecompressedBytes {
                throw Refusal(
                    413, "request_too_large",
                    "the body is over \(configuration.maximumDecompressedBytes) bytes")
            }
            return request.body
        case "gzip", "x-gzip", "deflate":
            do {
                return try Gzip.decompress(
                    request.body, limit: configuration.maximumDecompressedBytes,
                    maximumRatio: configuration.maximumCompressionRatio)
            } catch {
                switch error.code {
                case .tooLarge:
                    throw Refusal(
                        413, "request_too_large",
                        "the body inflates to more than \(configuration.maximumDecompressedBytes) bytes")
                case .suspiciousRatio:
                    throw Refusal(
                        413, "suspicious_compression", "the body inflates suspiciously: \(error.message)")
                default:
                    throw Refusal(400, "invalid_gzip", "the body is not valid gzip: \(error.message)")
                }
            }
        default:
            throw Refusal(
                415, "unsupported_encoding",
                "Content-Encoding \(encoding.prefix(40)) is not supported; use gzip")
        }
    }
}

/// A request refused with a status and a reason.
package struct Refusal: Error {
    package var response: ServerResponse
    /// The reason's code (`unknown_write_key`), also in the answer's body.
    var code: String

    init(_ status: Int, _ code: String, _ message: String, headers: [String: String] = [:]) {
        response = .error(status, code: code, message: message, headers: headers)
        self.code = code
    }
}
