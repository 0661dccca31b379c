import CMicroHTTPD
import Dispatch
import FootprintWire
import Foundation

/// An HTTP/1.1 listener on libmicrohttpd that hands each complete request to a handler.
///
/// Each connection has its own thread (bounded by ``Configuration/connectionLimit``), so a
/// handler may block, for example until its rows are committed. A stalled client is dropped
/// after ``Configuration/idleTimeoutSeconds`` of silence, and a body that trickles in for longer
/// than ``Configuration/bodyDeadlineSeconds`` has its connection cut. A body declared larger than
/// ``Configuration/maximumBodyBytes`` is answered 413 before it is read; a chunked one that grows
/// past it is discarded as it arrives and answered 413.
public final class HTTPServer: Sendable {
    /// Listener settings.
    public struct Configuration: Sendable {
        /// The address to listen on: a name or an IPv4/IPv6 literal. Default `127.0.0.1`.
        public var host = "127.0.0.1"
        /// The TCP port; 0 picks a free one (see ``HTTPServer/port``). Default 0.
        public var port: UInt16 = 0
        /// The most connections open at once; more are refused. Default 256.
        public var connectionLimit = 256
        /// The most connections open at once from one client address. Default 128.
        public var connectionLimitPerAddress = 128
        /// Seconds of silence after which a connection is closed. Default 15.
        public var idleTimeoutSeconds = 15
        /// Seconds a request may take from its head to the end of its body; past it the
        /// connection is closed (a slow-sending client cannot hold a thread). Default 30.
        public var bodyDeadlineSeconds = 30.0
        /// The largest request body, as sent, in bytes. Default 5 MB.
        public var maximumBodyBytes = MessageLimits.maximumRequestBytes
        /// Seconds ``HTTPServer/stop()`` waits for requests in flight. Default 30.
        public var shutdownGraceSeconds = 30.0
        /// Where the time a request arrives (its `receivedAt`) is read. Default: the system clock.
        public var clock: any Clock = SystemClock()
        /// Creates the default configuration.
        public init() {}
    }

    /// The port the server listens on (the one chosen when the configuration said 0).
    public let port: UInt16
    /// The configuration the server started with.
    public let configuration: Configuration
    private let core: Core
    private let daemon: LockedValue<OpaquePointer?>

    /// Starts listening.
    /// - Parameters:
    ///   - configuration: where to listen and the limits.
    ///   - handler: answers one complete request; called on the connection's thread.
    public init(
        configuration: Configuration, handler: @escaping @Sendable (ServerRequest) -> ServerResponse
    ) throws(ServerError) {
        let core = Core(configuration: configuration, handler: handler)
        let address = try Self.resolve(host: configuration.host, port: configuration.port)
        var flags =
            MHD_USE_THREAD_PER_CONNECTION.rawValue | MHD_USE_INTERNAL_POLLING_THREAD.rawValue
            | MHD_USE_POLL.rawValue | MHD_USE_ITC.rawValue
        if address.family == AF_INET6 { flags |= MHD_USE_IPv6.rawValue }
        let context = Unmanaged.passUnretained(core).toOpaque()
        let started: OpaquePointer? = address.storage.withUnsafeBytes { addressBytes in
            var options: [MHD_OptionItem] = [
                MHD_OptionItem(
                    option: .CONNECTION_LIMIT, value: max(1, configuration.connectionLimit),
                    ptr_value: nil),
                MHD_OptionItem(
                    option: .PER_IP_CONNECTION_LIMIT,
                    value: max(1, configuration.connectionLimitPerAddress), ptr_value: nil),
                MHD_OptionItem(
                    option: .CONNECTION_TIMEOUT, value: max(1, configuration.idleTimeoutSeconds),
                    ptr_value: nil),
                // Room to read big request bodies in few callbacks.
                MHD_OptionItem(option: .CONNECTION_MEMORY_LIMIT, value: 256 * 1024, ptr_value: nil),
                MHD_OptionItem(
                    option: .SOCK_ADDR, value: 0,
                    ptr_value: UnsafeMutableRawPointer(mutating: addressBytes.baseAddress)),
                MHD_OptionItem(
                    option: .NOTIFY_COMPLETED, value: unsafeBitCast(requestCompleted, to: Int.self),
                    ptr_value: context),
                MHD_OptionItem(option: .END, value: 0, ptr_value: nil),
            ]
            return cmhd_start_daemon(flags, configuration.port, nil, nil, accessHandler, context, &options)
        }
        guard let started else {
            throw ServerError(
                code: .cannotListen,
                message: "cannot listen on \(configuration.host):\(configuration.port) (in use or not local)")
        }
        self.core = core
        self.configuration = configuration
        self.port = cmhd_bound_port(started)
        self.daemon = LockedValue(started)
        // The daemon refers to `core` without retaining it; `self` keeps it alive until stop().
        _ = Unmanaged.passRetained(core)
    }

    deinit {
        stop()
    }

    /// Stops accepting connections, waits (up to ``Configuration/shutdownGraceSeconds``) for the
    /// requests in flight to be answered, then closes every connection. Safe to call twice.
    public func stop() {
        guard
            let daemon = daemon.withLock({ value -> OpaquePointer? in
                defer { value = nil }
                return value
            })
        else { return }
        // Quiescing hands the listening socket back to us. It is closed only once every
        // libmicrohttpd thread has ended: a thread may still poll it for a moment, and a closed
        // descriptor number can be reused by another socket.
        let listener = MHD_quiesce_daemon(daemon)
        let deadline = Date().addingTimeInterval(configuration.shutdownGraceSeconds)
        while core.requestsInFlight > 0, Date() < deadline {
            usleep(2000)
        }
        MHD_stop_daemon(daemon)
        if listener >= 0 { close(listener) }
        Unmanaged.passUnretained(core).release()
    }

    /// How many requests are being handled right now.
    public var requestsInFlight: Int { core.requestsInFlight }

    private static func resolve(host: String, port: UInt16) throws(ServerError) -> (
        storage: [UInt8], family: Int32
    ) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw ServerError(code: .cannotListen, message: "cannot resolve host \(host)")
        }
        defer { freeaddrinfo(list) }
        // Prefer IPv4 when the name has both (localhost): clients try it first.
        var chosen = first
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            if entry.pointee.ai_family == AF_INET {
                chosen = entry
                break
            }
            cursor = entry.pointee.ai_next
        }
        let bytes = Array(
            UnsafeRawBufferPointer(start: chosen.pointee.ai_addr, count: Int(chosen.pointee.ai_addrlen)))
        return (bytes, chosen.pointee.ai_family)
    }
}

extension HTTPServer {
    /// What the C callbacks reach through their context pointer.
    final class Core: @unchecked Sendable {
        let configuration: Configuration
        let handler: @Sendable (ServerRequest) -> ServerResponse
        private let inFlight = LockedValue(0)

        init(configuration: Configuration, handler: @escaping @Sendable (ServerRequest) -> ServerResponse) {
            self.configuration = configuration
            self.handler = handler
        }

        var requestsInFlight: Int { inFlight.withLock { $0 } }

        func began() { inFlight.withLock { $0 += 1 } }
        func ended() { inFlight.withLock { $0 -= 1 } }
    }

    /// One request being received: its head, the body so far, and whether it was answered.
    final class PendingRequest {
        let method: String
        let path: String
        let query: [String: String]
        let headers: [String: String]
        let receivedAt: Timestamp
        let clientAddress: String?
        let started = DispatchTime.now()
        var body: [UInt8] = []
        /// Set when the request was answered (the first call may answer 413 at once).
        var answered = false
        /// The answer to give once the body has ended, when the request is refused mid-body.
        var refusal: ServerResponse?

        init(
            method: String, path: String, query: [String: String], headers: [String: String],
            receivedAt: Timestamp, clientAddress: String?
        ) {
            self.method = method
            self.path = path
            self.query = query
            self.headers = headers
            self.receivedAt = receivedAt
            self.clientAddress = clientAddress
        }

        var secondsSinceStart: Double {
            Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        }
    }

    /// The numeric text of a client's socket address (`127.0.0.1`, `2001:db8::1`); an
    /// IPv4-mapped IPv6 address (an IPv4 client of an IPv6 listener) as IPv4; `nil` for another
    /// family or none.
    static func numericHost(_ address: UnsafePointer<sockaddr>?) -> String? {
        guard let address else { return nil }
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            var ipv4 = UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in.self).sin_addr
            return numericText(family: AF_INET, &ipv4)
        case AF_INET6:
            var ipv6 = UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in6.self).sin6_addr
            let bytes = withUnsafeBytes(of: ipv6) { Array($0) }
            if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {
                return bytes[12...].map { String($0) }.joined(separator: ".")
            }
            return numericText(family: AF_INET6, &ipv6)
        default:
            return nil
        }
    }

    private static func numericText<Address>(family: Int32, _ address: inout Address) -> String? {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let written = withUnsafePointer(to: &address) { pointer in
            inet_ntop(family, pointer, &text, socklen_t(text.count))
        }
        guard written != nil else { return nil }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

private let collectHeader: MHD_KeyValueIterator = { context, _, key, value in
    guard let context, let key else { return .YES }
    let box = Unmanaged<HeaderBox>.fromOpaque(context).takeUnretainedValue()
    let name = String(cString: key).lowercased()
    if box.headers[name] == nil { box.headers[name] = value.map { String(cString: $0) } ?? "" }
    return .YES
}

private let collectArgument: MHD_KeyValueIterator = { context, _, key, value in
    guard let context, let key else { return .YES }
    let box = Unmanaged<HeaderBox>.fromOpaque(context).takeUnretainedValue()
    let name = String(cString: key)
    if box.headers[name] == nil { box.headers[name] = value.map { String(cString: $0) } ?? "" }
    return .YES
}

private final class HeaderBox {
    var headers: [String: String] = [:]
}

private func send(_ response: ServerResponse, on connection: OpaquePointer, close: Bool = false) -> MHD_Result
{
    var body = response.body
    // MHD_RESPMEM_MUST_COPY (2): libmicrohttpd copies the body; Swift does not import the
    // constant's name from this closed C enum.
    let created = body.withUnsafeMutableBytes { bytes in
        MHD_create_response_from_buffer(bytes.count, bytes.baseAddress, MHD_ResponseMemoryMode(rawValue: 2)!)
    }
    guard let created else { return .NO }
    defer { MHD_destroy_response(created) }
    for (name, value) in response.headers {
        _ = MHD_add_response_header(created, name, value)
    }
    if close { _ = MHD_add_response_header(created, "Connection", "close") }
    return MHD_queue_response(connection, UInt32(response.status), created)
}

private let accessHandler: MHD_AccessHandlerCallback = {
    context, connection, url, method, _, uploadData, uploadDataSize, requestContext in
    guard let context, let connection, let uploadDataSize, let requestContext else { return .NO }
    let core = Unmanaged<HTTPServer.Core>.fromOpaque(context).takeUnretainedValue()
    let limits = core.configuration

    guard let stored = requestContext.pointee else {
        // First call: the head has arrived.
        let box = HeaderBox()
        _ = MHD_get_connection_values(
            connection, .HEADER_KIND, collectHeader, Unmanaged.passUnretained(box).toOpaque())
        let arguments = HeaderBox()
        _ = MHD_get_connection_values(
            connection, .GET_ARGUMENT_KIND, collectArgument, Unmanaged.passUnretained(arguments).toOpaque())
        let pending = HTTPServer.PendingRequest(
            method: method.map { String(cString: $0) } ?? "GET", path: url.map { String(cString: $0) } ?? "/",
            query: arguments.headers, headers: box.headers, receivedAt: limits.clock.now(),
            clientAddress: HTTPServer.numericHost(cmhd_client_address(connection)))
        requestContext.pointee = Unmanaged.passRetained(pending).toOpaque()
        core.began()
        if let declared = pending.headers["content-length"].flatMap({ Int($0) }) {
            guard declared <= limits.maximumBodyBytes else {
                pending.answered = true
                return send(tooLarge(limits), on: connection, close: true)
            }
            // Room for a typical batch up front; a client cannot make us reserve its whole claim.
            pending.body.reserveCapacity(min(declared, 1 << 20))
        }
        return .YES
    }
    let pending = Unmanaged<HTTPServer.PendingRequest>.fromOpaque(stored).takeUnretainedValue()

    let count = uploadDataSize.pointee
    if count > 0 {
        uploadDataSize.pointee = 0
        // libmicrohttpd cannot answer before the body ends: a client still sending after the
        // deadline is cut off; a body past the limit is discarded, not kept, and answered 413.
        if pending.secondsSinceStart > limits.bodyDeadlineSeconds { return .NO }
        if pending.refusal != nil { return .YES }
        if pending.body.count + count > limits.maximumBodyBytes {
            pending.refusal = tooLarge(limits)
            pending.body = []
            return .YES
        }
        if let uploadData {
            uploadData.withMemoryRebound(to: UInt8.self, capacity: count) { bytes in
                pending.body.append(contentsOf: UnsafeBufferPointer(start: bytes, count: count))
            }
        }
        return .YES
    }
    if pending.answered { return .YES }
    pending.answered = true
    if let refusal = pending.refusal { return send(refusal, on: connection, close: true) }
    let request = ServerRequest(
        method: pending.method, path: pending.path, query: pending.query, headers: pending.headers,
        body: pending.body, receivedAt: pending.receivedAt, clientAddress: pending.clientAddress)
    pending.body = []
    return send(core.handler(request), on: connection)
}

private func tooLarge(_ limits: HTTPServer.Configuration) -> ServerResponse {
    .error(
        413, code: "request_too_large", message: "the request body is over \(limits.maximumBodyBytes) bytes")
}

private let requestCompleted: MHD_RequestCompletedCallback = { context, _, requestContext, _ in
    guard let context, let requestContext, let stored = requestContext.pointee else { return }
    Unmanaged<HTTPServer.PendingRequest>.fromOpaque(stored).release()
    requestContext.pointee = nil
    Unmanaged<HTTPServer.Core>.fromOpaque(context).takeUnretainedValue().ended()
}
