import Footprint
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One request as the loopback receiver read it.
public struct ReceivedRequest: Sendable {
    public var method: String
    public var path: String
    /// Header names in lower case.
    public var headers: [String: String]
    /// The body as sent (possibly gzip).
    public var rawBody: [UInt8]
    /// The body after undoing `Content-Encoding: gzip`.
    public var body: [UInt8]

    /// The body as JSON.
    public var json: JSONValue? { try? JSONParser().parse(body) }
    /// The events in a `/v1/batch` body.
    public var batch: [JSONValue] { json?["batch"]?.arrayValue ?? [] }
}

/// A minimal HTTP/1.1 server on a loopback port, for delivery tests: it answers each request with
/// what `respond` returns, each connection on a thread of its own (kept open while the client
/// keeps it), and stops by itself after `lifetimeSeconds`.
public final class LoopbackReceiver: @unchecked Sendable {
    /// The port it listens on (127.0.0.1).
    public let port: UInt16
    private let listener: Int32
    private let respond: @Sendable (ReceivedRequest) -> HTTPResponse
    private let lock = NSLock()
    private var received: [ReceivedRequest] = []
    private var stopped = false
    private let finished = DispatchSemaphore(value: 0)

    /// The base URL to configure the SDK with.
    public var url: String { "http://127.0.0.1:\(port)" }
    /// Every request received so far.
    public var requests: [ReceivedRequest] {
        lock.lock()
        defer { lock.unlock() }
        return received
    }

    private var isStopped: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopped
    }

    /// Starts listening on a free loopback port.
    /// - Parameters:
    ///   - lifetimeSeconds: the receiver stops by itself after this long, a guard against a test
    ///     that never stops it; long, because a test on a busy machine can start sending late.
    ///     Default 600.
    ///   - respond: the answer to each request.
    public init(lifetimeSeconds: Double = 600, respond: @escaping @Sendable (ReceivedRequest) -> HTTPResponse)
        throws
    {
        self.respond = respond
        let descriptor = socket(AF_INET, Self.streamSocketType, 0)
        guard descriptor >= 0 else { throw ReceiverError(message: "socket() failed") }
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(descriptor, 16) == 0 else {
            close(descriptor)
            throw ReceiverError(message: "cannot listen on 127.0.0.1")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        listener = descriptor
        port = UInt16(bigEndian: address.sin_port)
        let deadline = Date().addingTimeInterval(lifetimeSeconds)
        Thread { [self] in
            serve(until: deadline)
            close(listener)
            finished.signal()
        }.start()
    }

    /// Stops accepting connections and waits for the server thread to end.
    public func stop() {
        lock.lock()
        let alreadyStopped = stopped
        stopped = true
        lock.unlock()
        if !alreadyStopped { finished.wait() }
    }

    deinit { stop() }

    private func serve(until deadline: Date) {
        while !isStopped && Date() < deadline {
            var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 50) > 0 else { continue }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            var timeout = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            Thread { [self] in keepServing(connection, until: deadline) }.start()
        }
    }

    /// Serves a connection's requests until the client closes it, the receiver stops or its
    /// lifetime ends: the receiver never closes a connection the client may be about to reuse
    /// (a busy machine can delay the client's next request by seconds).
    private func keepServing(_ connection: Int32, until deadline: Date) {
        defer { close(connection) }
        while handle(connection) {
            while true {
                if isStopped || Date() >= deadline { return }
                var next = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
                if poll(&next, 1, 50) > 0 { break }
            }
        }
    }

    /// Serves one request; returns whether the connection may carry another.
    private func handle(_ connection: Int32) -> Bool {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        func readMore() -> Bool {
            let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return false }
            buffer.append(contentsOf: chunk[0..<count])
            return true
        }
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        var headerEnd: Int?
        while headerEnd == nil {
            guard buffer.count < 1 << 20, readMore() else { return false }
            headerEnd = buffer.firstRange(of: separator)?.upperBound
        }
        let head = String(decoding: buffer[..<headerEnd!], as: UTF8.self).components(separatedBy: "\r\n")
        let requestLine = head[0].split(separator: " ").map(String.init)
        guard requestLine.count >= 2 else { return false }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        if headers["expect"]?.lowercased() == "100-continue" {
            transmit(connection, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        while buffer.count - headerEnd! < length {
            guard readMore() else { return false }
        }
        let rawBody = Array(buffer[headerEnd!..<(headerEnd! + length)])
        var body = rawBody
        if headers["content-encoding"] == "gzip" {
            body = (try? Gzip.decompress(rawBody, limit: 50 << 20)) ?? []
        }
        let request = ReceivedRequest(
            method: requestLine[0], path: requestLine[1], headers: headers, rawBody: rawBody, body: body)
        lock.lock()
        received.append(request)
        lock.unlock()
        let response = respond(request)
        let keepAlive = headers["connection"]?.lowercased() != "close"
        var text = "HTTP/1.1 \(response.status) Status\r\nContent-Length: \(response.body.count)\r\n"
        text += keepAlive ? "Connection: keep-alive\r\n" : "Connection: close\r\n"
        for (name, value) in response.headers { text += "\(name): \(value)\r\n" }
        return transmit(connection, Array((text + "\r\n").utf8) + response.body) && keepAlive
    }

    @discardableResult
    private func transmit(_ connection: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                send(connection, $0.baseAddress, $0.count, Self.sendFlags)
            }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    #if os(Linux)
        private static let streamSocketType = Int32(SOCK_STREAM.rawValue)
        private static let sendFlags = Int32(MSG_NOSIGNAL)
    #else
        private static let streamSocketType = SOCK_STREAM
        private static let sendFlags: Int32 = 0
    #endif
}

/// The receiver could not listen.
public struct ReceiverError: Error {
    /// What failed.
    public var message: String
    /// Creates an error.
    public init(message: String) { self.message = message }
}
