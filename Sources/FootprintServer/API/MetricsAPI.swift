import FootprintWire

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `GET /metrics`: the server's counters in Prometheus' text format
/// (``MetricsSnapshot/exposition()``), for the server-wide read or admin token (not a
/// project's read token: the counters are the whole server's)
/// (`Authorization: Bearer …`, wrong ones counted as failed sign-ins) or for a client whose
/// connection comes from one of ``AccessConfiguration/metricsAddresses``.
struct MetricsAPI: Sendable {
    let metrics: ServerMetrics
    let bearer: BearerAuthorization
    /// ``AccessConfiguration/metricsAddresses``, in the form connections show them.
    let addresses: Set<String>

    init(metrics: ServerMetrics, bearer: BearerAuthorization) {
        self.metrics = metrics
        self.bearer = bearer
        self.addresses = Set(bearer.access.metricsAddresses.compactMap(AccessConfiguration.canonicalAddress))
    }

    /// Answers a request for `/metrics`.
    func handle(_ request: ServerRequest) -> ServerResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            return .error(405, code: "method_not_allowed", message: "use GET", headers: ["Allow": "GET"])
        }
        let listed = request.peerAddress.map { addresses.contains($0) } ?? false
        if !listed {
            switch bearer.decide(request) {
            case .refused(let response):
                return response
            case .allowed(let grant) where grant.project != nil:
                return .error(
                    403, code: "forbidden", message: "a project's read token cannot read the server's metrics"
                )
            case .allowed:
                break
            }
        }
        return Self.response(metrics.snapshot())
    }

    /// The response that carries `snapshot`.
    static func response(_ snapshot: MetricsSnapshot) -> ServerResponse {
        ServerResponse(
            status: 200,
            headers: ["Content-Type": MetricsSnapshot.expositionContentType, "Cache-Control": "no-store"],
            body: Array(snapshot.exposition().utf8))
    }
}

extension AccessConfiguration {
    /// `address` (IPv4 or IPv6, as text) written the way the server writes a connection's address
    /// (`::1`, `2001:db8::1`, an IPv4-mapped IPv6 address as IPv4); `nil` when it is not one.
    public static func canonicalAddress(_ address: String) -> String? {
        // One address, not a block: parsed and written back as `AddressRange` does.
        guard !address.contains("/"), let single = try? AddressRange(address) else { return nil }
        return single.description
    }
}
