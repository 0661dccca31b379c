/// The bearer-token check of the report API and `/metrics`: which grant a request's
/// `Authorization: Bearer …` carries, with wrong tokens counted by the ``SignInLimiter`` (past
/// its limit every bearer token is answered `429` without being compared).
struct BearerAuthorization: Sendable {
    /// A request let through with a grant, or the response that refuses it.
    enum Decision {
        case allowed(AccessGrant)
        case refused(ServerResponse)
    }

    let access: AccessConfiguration
    let signIns: LockedValue<SignInLimiter>
    /// Where project read tokens are looked up; `nil`: only the server-wide tokens count.
    let store: (any AccessStore)?

    /// Decides `request`: `401` without a read or admin token, `429` past the wrong-token limit,
    /// `503` when the store cannot be read.
    func decide(_ request: ServerRequest) -> Decision {
        let authorization = request.headers["authorization"]
        let presentsToken = AccessLevel.bearerToken(authorization) != nil
        if presentsToken {
            let waiting: (seconds: Int, from: String)? =
                switch signIns.withLock({ $0.check(address: request.clientAddress, now: request.receivedAt) })
                {
                case .allow: nil
                case .tooManyFromAddress(let seconds): (seconds, "from this address")
                case .tooManyOverall(let seconds): (seconds, "sent to this server")
                }
            if let waiting {
                return .refused(
                    .error(
                        429, code: "too_many_failures",
                        message: "too many wrong tokens \(waiting.from); retry after \(waiting.seconds) s",
                        headers: ["Retry-After": String(waiting.seconds)]))
            }
        }
        let grant: AccessGrant
        do {
            grant = try AccessGrant.of(authorization: authorization, access: access, store: store)
        } catch {
            return .refused(
                .error(503, code: error.code.name, message: error.message, headers: ["Retry-After": "5"]))
        }
        guard grant.level >= .read else {
            if presentsToken {
                signIns.withLock { $0.failed(address: request.clientAddress, now: request.receivedAt) }
            }
            return .refused(
                .error(
                    401, code: "unauthorized",
                    message:
                        "send a read or admin token as \"Authorization: Bearer TOKEN\" (write keys cannot read)",
                    headers: ["WWW-Authenticate": "Bearer"]))
        }
        return .allowed(grant)
    }
}
