/// The bearer-token check of the report API and `/metrics`: which level a request's
/// `Authorization: Bearer …` grants, with wrong tokens counted by the ``SignInLimiter`` (past its
/// limit every bearer token is answered `429` without being compared).
struct BearerAuthorization: Sendable {
    /// A request let through at a level, or the response that refuses it.
    enum Decision {
        case allowed(AccessLevel)
        case refused(ServerResponse)
    }

    let access: AccessConfiguration
    let signIns: LockedValue<SignInLimiter>

    /// Decides `request`: `401` without the read or admin token, `429` past the wrong-token limit.
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
        let level = AccessLevel.of(authorization: authorization, access: access)
        guard level >= .read else {
            if presentsToken {
                signIns.withLock { $0.failed(address: request.clientAddress, now: request.receivedAt) }
            }
            return .refused(
                .error(
                    401, code: "unauthorized",
                    message:
                        "send the read or admin token as \"Authorization: Bearer TOKEN\" (write keys cannot read)",
                    headers: ["WWW-Authenticate": "Bearer"]))
        }
        return .allowed(level)
    }
}
