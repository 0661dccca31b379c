import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One TCP connection to an HTTP server, carrying one request at a time and kept open between
/// them (HTTP/1.1 keep-alive). A non-blocking socket waited on with `poll`, so that every step
/// (connecting, sending, each read) ends at the request's deadline. Used by one thread at a time:
/// ``HTTPConnectionPool`` hands it out and takes it back.
final class HTTPConnection {
    /// Why an exchange failed.
    enum Failure: Error, Equatable {
        /// No connection could be made; says why.
        case cannotConnect(String)
        /// The deadline passed.
        case timedOut
        /// The server closed the connection before a byte of the answer came: a kept-alive
        /// connection the server had let go (the request may be sent again on a new one).
        case closedBeforeAnswer
        /// The connection broke (reset, or closed in the middle of the answer); says how.
        case broken(String)
        /// The answer is not one the parser accepts.
        case response(HTTPResponseParser.Failure)
    }

    /// A point on the monotonic clock, in seconds.
    typealias Instant = Double

    /// Now on the monotonic clock.
    static var now: Instant { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    let node: ClickHouseLocation.Node
    private let descriptor: Int32
    /// When the last answer was read in full (or the connection opened).
    private(set) var lastUsed: Instant
    /// Bytes read from the socket at a time.
    private static let readSize = 64 << 10
    /// Where reads land, allocated once per connection.
    private var buffer = [UInt8](repeating: 0, count: readSize)

    private init(node: ClickHouseLocation.Node, descriptor: Int32) {
        self.node = node
        self.descriptor = descriptor
        self.lastUsed = Self.now
    }

    deinit {
        close(descriptor)
    }

    /// Connects to `node` (each address its name resolves to, IPv4 first) by `deadline`.
    static func open(to node: ClickHouseLocation.Node, deadline: Instant) throws(Failure) -> HTTPConnection {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = streamSocketType
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(node.host, String(node.port), &hints, &list)
        guard status == 0, list != nil else {
            throw .cannotConnect("cannot resolve \(node.host)")
        }
        defer { freeaddrinfo(list) }
        var addresses: [UnsafeMutablePointer<addrinfo>] = []
        var cursor = list
        while let entry = cursor {
            addresses.append(entry)
            cursor = entry.pointee.ai_next
        }
        addresses.sort {
            ($0.pointee.ai_family == AF_INET ? 0 : 1) < ($1.pointee.ai_family == AF_INET ? 0 : 1)
        }
        var reason = "no address"
        for address in addresses {
            do {
                return try open(address.pointee, node: node, deadline: deadline)
            } catch .timedOut {
                throw .timedOut
            } catch {
                if case .cannotConnect(let why) = error { reason = why }
            }
        }
        throw .cannotConnect(reason)
    }

    private static func open(_ address: addrinfo, node: ClickHouseLocation.Node, deadline: Instant)
        throws(Failure) -> HTTPConnection
    {
        let descriptor = socket(address.ai_family, streamSocketType, 0)
        guard descriptor >= 0 else { throw .cannotConnect("socket(): \(errorText())") }
        // Owned from here: closed by deinit whatever happens.
        let connection = HTTPConnection(node: node, descriptor: descriptor)
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        var yes: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
        #if canImport(Darwin)
            setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
        #endif
        if connect(descriptor, address.ai_addr, address.ai_addrlen) != 0 {
            guard errno == EINPROGRESS else { throw .cannotConnect(errorText()) }
            try connection.wait(for: Int16(POLLOUT), until: deadline)
            var failure: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &failure, &length)
            guard failure == 0 else { throw .cannotConnect(String(cString: strerror(failure))) }
        }
        return connection
    }

    /// Whether the server has closed the connection, or sent something nobody asked for, while
    /// it sat idle: it must not carry another request.
    var isStale: Bool {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, 0) != 0
    }

    /// Sends `head` and `body`, then reads the answer with `limits`, all by `deadline`.
    func exchange(
        head: [UInt8], body: [UInt8], limits: HTTPResponseParser.Limits, deadline: Instant
    ) throws(Failure) -> HTTPResponseParser.Response {
        try write(head, deadline: deadline)
        try write(body, deadline: deadline)
        var parser = HTTPResponseParser(limits: limits)
        var received = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received += count
                do {
                    if case .complete(var response, let extra) = try parser.consume(buffer[0..<count]) {
                        if extra > 0 { response.keepsAlive = false }
                        lastUsed = Self.now
                        return response
                    }
                } catch {
                    throw .response(error)
                }
            } else if count == 0 {
                guard received > 0 else { throw .closedBeforeAnswer }
                do {
                    return try parser.finish()
                } catch .truncated {
                    throw .broken("closed in the middle of the answer")
                } catch {
                    throw .response(error)
                }
            } else if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
                try wait(for: Int16(POLLIN), until: deadline)
            } else if errno == ECONNRESET && received == 0 {
                throw .closedBeforeAnswer
            } else {
                throw .broken(Self.errorText())
            }
        }
    }

    /// Sends every byte of `bytes` by `deadline`.
    private func write(_ bytes: [UInt8], deadline: Instant) throws(Failure) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes {
                send(descriptor, $0.baseAddress! + offset, $0.count - offset, Self.sendFlags)
            }
            if count >= 0 {
                offset += count
            } else if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
                try wait(for: Int16(POLLOUT), until: deadline)
            } else if errno == EPIPE || errno == ECONNRESET {
                throw .closedBeforeAnswer
            } else {
                throw .broken(Self.errorText())
            }
        }
    }

    /// Waits until the socket is ready for `events`, at most until `deadline`.
    private func wait(for events: Int16, until deadline: Instant) throws(Failure) {
        while true {
            let left = deadline - Self.now
            guard left > 0 else { throw .timedOut }
            var poller = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&poller, 1, Int32(min(left * 1_000, 3_600_000).rounded(.up)))
            if ready > 0 { return }
            if ready < 0 && errno != EINTR { throw .broken("poll(): \(Self.errorText())") }
        }
    }

    private static func errorText() -> String {
        String(cString: strerror(errno))
    }

    #if canImport(Glibc)
        /// `SOCK_STREAM`, 1 on Linux (the `__socket_type` enum is not always visible through
        /// Glibc in optimized builds).
        private static var streamSocketType: Int32 { 1 }
        private static var sendFlags: Int32 { Int32(MSG_NOSIGNAL) }
    #else
        private static var streamSocketType: Int32 { SOCK_STREAM }
        private static var sendFlags: Int32 { 0 }
    #endif
}
