import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A minimal HTTP/1.1 client over a real TCP socket, so tests can send what well-behaved clients
/// never would: truncated bodies, bytes one at a time, lies in `Content-Length`.
struct LoopbackClient {
    struct Response {
        var status: Int
        var headers: [String: String]
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let port: UInt16
    /// The loopback address connected to. Default 127.0.0.1.
    var host = "127.0.0.1"
    /// The loopback address connections come from (any of 127.0.0.0/8 on Linux), so a test
    /// can play several clients; `nil`: the system's choice (127.0.0.1).
    var sourceAddress: String?

    init(port: UInt16, sourceAddress: String? = nil, host: String = "127.0.0.1") {
        self.port = port
        self.sourceAddress = sourceAddress
        self.host = host
    }

    /// The same server, reached from `address`.
    func from(_ address: String) -> LoopbackClient {
        LoopbackClient(port: port, sourceAddress: address, host: host)
    }

    /// Opens a connection to host:port.
    func connect() throws -> Int32 {
        let socketHandle = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketHandle >= 0 else { throw Failure(description: "socket() failed") }
        if let sourceAddress {
            var source = sockaddr_in()
            source.sin_family = sa_family_t(AF_INET)
            source.sin_addr.s_addr = inet_addr(sourceAddress)
            let bound = withUnsafePointer(to: &source) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(socketHandle, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else {
                close(socketHandle)
                throw Failure(description: "bind(\(sourceAddress)) failed: \(errno)")
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr(host)
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(socketHandle, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socketHandle, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard status == 0 else {
            close(socketHandle)
            throw Failure(description: "connect() failed: \(errno)")
        }
        return socketHandle
    }

    /// The bytes of a request with `Content-Length` set to the body's size.
    static func requestBytes(
        method: String, path: String, headers: [String: String] = [:], body: [UInt8] = []
    ) -> [UInt8] {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if headers.keys.first(where: { $0.lowercased() == "content-length" }) == nil {
            head += "Content-Length: \(body.count)\r\n"
        }
        head += "\r\n"
        return Array(head.utf8) + body
    }

    /// Sends one request on a new connection and reads the response.
    func send(
        _ method: String, _ path: String, headers: [String: String] = [:], body: [UInt8] = []
    ) throws -> Response {
        let connection = try connect()
        defer { close(connection) }
        try write(Self.requestBytes(method: method, path: path, headers: headers, body: body), to: connection)
        return try readResponse(from: connection)
    }

    /// POSTs `json` text with the write key as HTTP Basic username.
    func post(_ path: String, json: String, writeKey: String?, headers: [String: String] = [:]) throws
        -> Response
    {
        var headers = headers
        headers["Content-Type"] = "application/json"
        if let writeKey { headers["Authorization"] = Self.basic(writeKey) }
        return try send("POST", path, headers: headers, body: Array(json.utf8))
    }

    static func basic(_ writeKey: String) -> String {
        "Basic " + Data("\(writeKey):".utf8).base64EncodedString()
    }

    /// Writes all of `bytes`; a reset by the server (it answered early) is not an error.
    func write(_ bytes: [UInt8], to connection: Int32) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { buffer in
                Glibc.send(connection, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL))
            }
            if written <= 0 { return }
            offset += written
        }
    }

    /// Sends `bytes` one at a time, `pause` microseconds apart (running `between` after each),
    /// until the server closes the connection; returns how many were sent by then, or `nil`
    /// when all were sent and it is still open.
    func trickle(
        _ bytes: [UInt8], on connection: Int32, pause: UInt32, between: () throws -> Void = {}
    ) throws -> Int? {
        for (index, byte) in bytes.enumerated() {
            try write([byte], to: connection)
            try between()
            usleep(pause)
            var ready = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
            if poll(&ready, 1, 0) > 0 {
                var scratch: UInt8 = 0
                if recv(connection, &scratch, 1, 0) <= 0 { return index + 1 }
            }
        }
        return nil
    }

    /// Whether the server has closed `connection` (checked without waiting).
    static func wasClosed(_ connection: Int32) -> Bool {
        var ready = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
        guard poll(&ready, 1, 0) > 0 else { return false }
        var scratch: UInt8 = 0
        return recv(connection, &scratch, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) <= 0
    }

    /// Reads one response (status line, headers, `Content-Length` body).
    func readResponse(from connection: Int32) throws -> Response {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        func fill() throws -> Bool {
            let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return false }
            buffer += chunk[0..<count]
            return true
        }
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        var headEnd: Int?
        while headEnd == nil {
            if let range = buffer.firstRange(of: separator) {
                headEnd = range.upperBound
                break
            }
            guard try fill() else { throw Failure(description: "connection closed before a response") }
        }
        let head = String(decoding: buffer[0..<headEnd!], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw Failure(description: "bad status line: \(head.prefix(80))")
        }
        var headers: [String: String] = [:]
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        while buffer.count - headEnd! < length {
            guard try fill() else { break }
        }
        return Response(
            status: status, headers: headers,
            body: Array(buffer[headEnd!..<min(buffer.count, headEnd! + length)]))
    }
}
