import CMicroHTTPD
import Dispatch
import FootprintWire
import Foundation

/// An HTTP/1.1 listener on libmicrohttpd that hands each complete request to a handler.
///
/// libmicrohttpd's epoll event loop runs on a small pool of threads (``Configuration/threads``);
/// no thread belongs to a connection. A handler answers through a ``ServerResponder``, at once
/// or later from any thread: a request answered later (one waiting for its group commit) has its
/// connection suspended until the answer arrives, so waiting holds no thread. Handlers run on an
/// event-loop thread and must return quickly; slow work belongs elsewhere (``WorkerPool``).
///
/// A connection must deliver a request's head within ``Configuration/headerDeadlineSeconds`` of
/// opening (or of the previous answer) and its body within ``Configuration/bodyDeadlineSeconds``
/// of the head; silence for ``Configuration/idleTimeoutSeconds`` closes it too. A body declared
/// larger than ``Configuration/maximumBodyBytes`` is answered 413 before it is read; a chunked one
/// that grows past it is discarded as it arrives and answered 413.
public final class HTTPServer: Sendable {
    /// Listener settings.
    public struct Configuration: Sendable {
        /// The address to listen on: a name or an IPv4/IPv6 literal. Default `127.0.0.1`.
        public var host = "127.0.0.1"
        /// The TCP port; 0 picks a free one (see ``HTTPServer/port``). Default 0.
        public var port: UInt16 = 0
        /// Threads of the event loop (each runs its own epoll set). Default: the CPU count.
        public var threads = ProcessInfo.processInfo.activeProcessorCount
        /// The most connections open at once. Default 10,000. When every slot is taken, a new
        /// connection evicts the one that has waited longest for a request head (idle between
        /// requests or trickling a head); a connection with a request in flight is never evicted,
        /// and a newcomer finding every other connection in flight is closed. The open-file limit
        /// is raised to fit at start (see ``OpenFileLimit``).
        public var connectionLimit = 10_000
        /// The most connections open at once from one client address; 0 for no such limit
        /// (default: behind a proxy every client has the proxy's address).
        public var connectionLimitPerAddress = 0
        /// Seconds of silence after which a connection is closed. Default 10.
        public var idleTimeoutSeconds = 10
        /// Seconds a connection has to deliver a complete request head, counted from its opening
        /// or from the previous answer; past it the connection is closed. Default 10.
        public var headerDeadlineSeconds = 10.0
        /// Seconds a request may take from its head to the end of its body; past it the
        /// connection is closed (a slow-sending client cannot hold its slot). Default 30.
        public var bodyDeadlineSeconds = 30.0
        /// The largest request body, as sent, in bytes. Default 5 MB.
        public var maximumBodyBytes = MessageLimits.maximumRequestBytes
        /// Request bodies all connections together may hold, from their first byte until the
        /// request is over; a body that would go past it is discarded and answered 503 with
        /// `Retry-After` (10,000 clients sending 5 MB each cannot exhaust memory). Default 512 MB.
        public var maximumBufferedBodyBytes = 512 << 20
        /// Bytes libmicrohttpd may use per connection for the request head and the read buffer
        /// (a head larger than this is refused with 431). Default 32 KB.
        public var connectionMemoryBytes = 32 * 1024
        /// Proxies whose `X-Forwarded-For` is believed (addresses or CIDR blocks): for a request
        /// from one of them, ``ServerRequest/clientAddress`` is the rightmost address of that
        /// header that is not a listed proxy. Default: none, so the header is ignored.
        public var trustedProxies: [AddressRange] = []
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
    /// The open-file limit in force after start (raised toward what the connection limit needs).
    public let openFileLimit: Int
    private let core: Core

    /// Starts listening.
    /// - Parameters:
    ///   - configuration: where to listen and the limits.
    ///   - handler: takes one complete request and answers it through the responder, now or
    ///     later; called on an event-loop thread, so it must not block.
    public init(
        configuration: Configuration,
        handler: @escaping @Sendable (ServerRequest, ServerResponder) -> Void
    ) throws(ServerError) {
        var configuration = configuration
        configuration.connectionLimit = max(1, configuration.connectionLimit)
        configuration.threads = min(max(1, configuration.threads), configuration.connectionLimit)
        // Each connection holds a descriptor; keep some for the database, the listener and logs.
        let accepted =
            configuration.connectionLimit + ConnectionTable.reserve(for: configuration.connectionLimit)
        openFileLimit = OpenFileLimit.raise(toward: accepted + 256)
        let core = Core(configuration: configuration, handler: handler)
        let address = try Self.resolve(host: configuration.host, port: configuration.port)
        var flags =
            MHD_USE_EPOLL_INTERNAL_THREAD.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
            | MHD_USE_TURBO.rawValue
        if address.family == AF_INET6 { flags |= MHD_USE_IPv6.rawValue }
        let context = Unmanaged.passUnretained(core).toOpaque()
        let started: OpaquePointer? = address.storage.withUnsafeBytes { addressBytes in
            var options: [MHD_OptionItem] = [
                MHD_OptionItem(
                    option: .CONNECTION_LIMIT, value: accepted, ptr_value: nil),
                MHD_OptionItem(
                    option: .CONNECTION_TIMEOUT, value: max(1, configuration.idleTimeoutSeconds),
                    ptr_value: nil),
                MHD_OptionItem(
                    option: .CONNECTION_MEMORY_LIMIT, value: max(4096, configuration.connectionMemoryBytes),
                    ptr_value: nil),
                MHD_OptionItem(option: .LISTEN_BACKLOG_SIZE, value: 4096, ptr_value: nil),
                MHD_OptionItem(
                    option: .SOCK_ADDR, value: 0,
                    ptr_value: UnsafeMutableRawPointer(mutating: addressBytes.baseAddress)),
                MHD_OptionItem(
                    option: .NOTIFY_COMPLETED, value: unsafeBitCast(requestCompleted, to: Int.self),
                    ptr_value: context),
                MHD_OptionItem(
                    option: .URI_LOG_CALLBACK, value: unsafeBitCast(targetArrived, to: Int.self),
                    ptr_value: context),
                MHD_OptionItem(
                    option: .NOTIFY_CONNECTION, value: unsafeBitCast(connectionNotified, to: Int.self),
                    ptr_value: context),
            ]
            if configuration.threads > 1 {
                options.append(
                    MHD_OptionItem(option: .THREAD_POOL_SIZE, value: configuration.threads, ptr_value: nil))
            }
            if configuration.connectionLimitPerAddress > 0 {
                options.append(
                    MHD_OptionItem(
                        option: .PER_IP_CONNECTION_LIMIT, value: configuration.connectionLimitPerAddress,
                        ptr_value: nil))
            }
            options.append(MHD_OptionItem(option: .END, value: 0, ptr_value: nil))
            return cmhd_start_daemon(
                flags, configuration.port, acceptPolicy, context, accessHandler, context, &options)
        }
        guard let started else {
            throw ServerError(
                code: .cannotListen,
                message: "cannot listen on \(configuration.host):\(configuration.port) (in use or not local)")
        }
        self.core = core
        self.configuration = configuration
        self.port = cmhd_bound_port(started)
        core.started(started)
        // The daemon refers to `core` without retaining it; `self` keeps it alive until stop().
        _ = Unmanaged.passRetained(core)
    }

    /// Starts listening with a handler that answers every request at once.
    /// - Parameters:
    ///   - configuration: where to listen and the limits.
    ///   - respond: answers one complete request; called on an event-loop thread.
    public convenience init(
        configuration: Configuration, respond: @escaping @Sendable (ServerRequest) -> ServerResponse
    ) throws(ServerError) {
        try self.init(configuration: configuration) { request, responder in
            responder.respond(respond(request))
        }
    }

    deinit {
        stop()
    }

    /// Stops accepting connections, waits (up to ``Configuration/shutdownGraceSeconds``) for the
    /// requests in flight to be answered, then closes every connection. Safe to call twice.
    public func stop() {
        core.stop()
    }

    /// How many requests are being handled right now (from a complete head to the answer sent).
    public var requestsInFlight: Int { core.connections.requestsInFlight }

    /// How many connections are open right now.
    public var connectionsOpen: Int { core.connections.count }

    /// How many connections were closed so far to keep the table within
    /// ``Configuration/connectionLimit`` (the longest-idle one evicted for a newcomer, or the
    /// newcomer when every other connection had a request in flight).
    public var connectionsEvicted: Int { core.connections.evictions }

    /// Bytes of request bodies held right now (see ``Configuration/maximumBufferedBodyBytes``).
    public var bufferedBodyBytes: Int { core.bufferedBodyBytes }

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
