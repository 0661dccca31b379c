import CMicroHTTPD
import Dispatch
import FootprintWire
import Foundation

extension HTTPServer {
    /// What the C callbacks reach through their context pointer.
    final class Core: @unchecked Sendable {
        let configuration: Configuration
        let handler: @Sendable (ServerRequest, ServerResponder) -> Void
        let connections: ConnectionTable
        /// The running daemon; `nil` once stopping. Resuming a connection holds this lock, so a
        /// late answer never touches a daemon being torn down.
        private let daemon = LockedValue<OpaquePointer?>(nil)
        private let stopping = LockedValue(false)
        private let buffered = LockedValue(0)

        init(
            configuration: Configuration,
            handler: @escaping @Sendable (ServerRequest, ServerResponder) -> Void
        ) {
            self.configuration = configuration
            self.handler = handler
            self.connections = ConnectionTable(limit: configuration.connectionLimit)
        }

        func started(_ daemon: OpaquePointer) {
            self.daemon.withLock { $0 = daemon }
            connections.startReaping(every: min(0.5, configuration.headerDeadlineSeconds / 2))
        }

        /// Whether a new connection is taken: until ``stop()`` begins.
        var acceptsConnections: Bool { !stopping.withLock { $0 } }

        /// Bytes of request bodies held now.
        var bufferedBodyBytes: Int { buffered.withLock { $0 } }

        /// Counts `count` more body bytes held, unless that passes the limit.
        func hold(_ count: Int) -> Bool {
            buffered.withLock { total in
                guard total + count <= configuration.maximumBufferedBodyBytes else { return false }
                total += count
                return true
            }
        }

        /// Body bytes no longer held.
        func release(_ count: Int) {
            guard count > 0 else { return }
            buffered.withLock { $0 -= count }
        }

        /// Wakes a suspended connection whose answer is ready (from any thread).
        func resume(_ connection: UInt) {
            daemon.withLock { daemon in
                guard daemon != nil, let pointer = OpaquePointer(bitPattern: connection) else { return }
                MHD_resume_connection(pointer)
            }
        }

        func stop() {
            // The first call stops; a second one (or one racing it) returns at once.
            guard
                stopping.withLock({ value -> Bool in
                    defer { value = true }
                    return !value
                }), let daemon = daemon.withLock({ $0 })
            else { return }
            // From here on a new connection is refused as it is accepted (``acceptsConnections``)
            // while the requests in flight finish. Not `MHD_quiesce_daemon`: with epoll and
            // internal threads it races the event loop that removes the same listening socket
            // from the same epoll set, and libmicrohttpd 0.9.75 aborts the process when it loses.
            // `MHD_stop_daemon` closes the listening socket.
            let deadline = Date().addingTimeInterval(configuration.shutdownGraceSeconds)
            while connections.requestsInFlight > 0, Date() < deadline {
                usleep(2000)
            }
            // From here on a late answer finds no daemon and resumes nothing.
            self.daemon.withLock { $0 = nil }
            connections.stopReaping()
            MHD_stop_daemon(daemon)
            Unmanaged.passUnretained(self).release()
        }
    }

    /// One request: its head and body as they arrive (touched only by its connection's
    /// event-loop thread), and its answer, which may come from any thread.
    final class Exchange: @unchecked Sendable {
        /// Where the answer is.
        enum Phase {
            /// The body is arriving.
            case receiving
            /// The handler has the request.
            case handling
            /// The handler returned without answering; the connection is suspended.
            case suspended
            /// The answer is waiting to be queued on the event loop.
            case ready(ServerResponse)
            /// The answer was queued (or the request refused before its body).
            case sent
            /// The request is over (the connection may be gone): answers are dropped.
            case finished
        }

        let method: String
        let path: String
        let query: [String: String]
        let headers: [String: String]
        let receivedAt: Timestamp
        let clientAddress: String?
        let peerAddress: String?
        let started = ConnectionTable.now()
        var body: [UInt8] = []
        /// The answer to give once the body has ended, when the request is refused mid-body.
        var refusal: ServerResponse?
        /// Body bytes counted against ``Configuration/maximumBufferedBodyBytes`` until the end.
        var heldBytes = 0
        private let lock = NSLock()
        private var phase = Phase.receiving

        init(
            method: String, path: String, query: [String: String], headers: [String: String],
            receivedAt: Timestamp, clientAddress: String?, peerAddress: String?
        ) {
            self.method = method
            self.path = path
            self.query = query
            self.headers = headers
            self.receivedAt = receivedAt
            self.clientAddress = clientAddress
            self.peerAddress = peerAddress
        }

        var secondsSinceStart: Double { Double(ConnectionTable.now() - started) / 1e9 }

        /// Moves from `receiving` to `handling`; false when the request was already answered.
        func beginHandling() -> Bool {
            lock.withLock {
                guard case .receiving = phase else { return false }
                phase = .handling
                return true
            }
        }

        /// Marks the request answered before its body was read.
        func refusedEarly() { lock.withLock { phase = .sent } }

        /// Takes the handler's answer; returns whether the connection must be resumed for it.
        func answer(_ response: ServerResponse) -> Bool {
            lock.withLock {
                switch phase {
                case .handling:
                    phase = .ready(response)
                    return false
                case .suspended:
                    phase = .ready(response)
                    return true
                default:
                    return false
                }
            }
        }

        /// After the handler returned: the answer to queue now, or `nil` once `suspend` has run
        /// (under the lock, so an answer arriving meanwhile finds the connection suspended).
        func answerOrSuspend(_ suspend: () -> Void) -> ServerResponse? {
            lock.withLock {
                if case .ready(let response) = phase {
                    phase = .sent
                    return response
                }
                guard case .handling = phase else { return nil }
                phase = .suspended
                suspend()
                return nil
            }
        }

        /// The answer that woke the connection, if it is there.
        func takeAnswer() -> ServerResponse? {
            lock.withLock {
                guard case .ready(let response) = phase else { return nil }
                phase = .sent
                return response
            }
        }

        func finish() { lock.withLock { phase = .finished } }
    }
}

private final class HeaderBox {
    var values: [String: String] = [:]
    /// The name of a header holding a NUL character, which is refused rather than cut short.
    var withNUL: String?
}

/// Collects the header fields, each read with its length.
private let collectHeader: MHD_KeyValueIteratorN = { context, _, key, keySize, value, valueSize in
    guard let context, let key else { return .YES }
    let box = Unmanaged<HeaderBox>.fromOpaque(context).takeUnretainedValue()
    let nameBytes = UnsafeRawBufferPointer(start: key, count: keySize)
    let valueBytes = UnsafeRawBufferPointer(start: value, count: value == nil ? 0 : valueSize)
    let name = String(decoding: nameBytes, as: UTF8.self).lowercased()
    if nameBytes.contains(0) || valueBytes.contains(0) {
        box.withNUL = box.withNUL ?? String(name.prefix { $0 != "\0" }.prefix(64))
        return .YES
    }
    let text = String(decoding: valueBytes, as: UTF8.self)
    if let existing = box.values[name] {
        // Each proxy may add its own X-Forwarded-For line; together they are one list.
        if name == "x-forwarded-for" { box.values[name] = existing + "," + text }
    } else {
        box.values[name] = text
    }
    return .YES
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

/// The key of a connection in the ``ConnectionTable`` (and the bits a responder keeps to resume it).
private func key(_ connection: OpaquePointer) -> UInt {
    UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection)))
}

/// The head of a request has arrived: records it and refuses a body declared too large.
private func headArrived(
    _ core: HTTPServer.Core, _ connection: OpaquePointer, url: UnsafePointer<CChar>?,
    method: UnsafePointer<CChar>?, requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>
) -> MHD_Result {
    let limits = core.configuration
    let headers = HeaderBox()
    _ = MHD_get_connection_values_n(
        connection, .HEADER_KIND, collectHeader, Unmanaged.passUnretained(headers).toOpaque())
    // The target as the client sent it (kept when its line arrived), decoded here with every byte.
    let rawTarget =
        core.connections.takeTarget(key(connection)) ?? url.map { Array(String(cString: $0).utf8) } ?? []
    let target: RequestTarget
    var refusal: ServerResponse?
    do {
        target = try RequestTarget(rawTarget)
    } catch {
        target = RequestTarget.unreadable
        refusal = .error(400, code: error.code.name, message: error.message)
    }
    if let name = headers.withNUL {
        refusal = .error(
            400, code: ServerError.Code.invalidHeader.name,
            message: "the header \(name) holds a NUL character")
    }
    let peer = HTTPServer.numericHost(cmhd_client_address(connection))
    let exchange = HTTPServer.Exchange(
        method: method.map { String(cString: $0) } ?? "GET", path: target.path,
        query: target.query, headers: headers.values, receivedAt: limits.clock.now(),
        clientAddress: limits.trustedProxies.isEmpty
            ? peer
            : AddressRange.clientAddress(
                peer: peer, forwardedFor: headers.values["x-forwarded-for"], trusted: limits.trustedProxies),
        peerAddress: peer)
    requestContext.pointee = Unmanaged.passRetained(exchange).toOpaque()
    core.connections.requestBegan(key(connection))
    core.connections.setDeadline(key(connection), ConnectionTable.deadline(in: limits.bodyDeadlineSeconds))
    if let refusal {
        // Answered once the body (if any) has ended; nothing of it is kept.
        refuse(exchange, refusal, core)
        return .YES
    }
    if let declared = exchange.headers["content-length"].flatMap({ Int($0) }) {
        guard declared <= limits.maximumBodyBytes else {
            exchange.refusedEarly()
            return send(tooLarge(limits), on: connection, close: true)
        }
        // Room for a typical batch up front; a client cannot make us reserve its whole claim.
        exchange.body.reserveCapacity(min(declared, 1 << 20))
    }
    return .YES
}

/// Some of the body has arrived.
private func bodyArrived(
    _ core: HTTPServer.Core, _ exchange: HTTPServer.Exchange, _ data: UnsafePointer<CChar>?, count: Int
) -> MHD_Result {
    let limits = core.configuration
    // libmicrohttpd cannot answer before the body ends: a client still sending after the
    // deadline is cut off; a body past a limit is discarded, not kept, and answered at its end.
    if exchange.secondsSinceStart > limits.bodyDeadlineSeconds { return .NO }
    if exchange.refusal != nil { return .YES }
    if exchange.body.count + count > limits.maximumBodyBytes {
        refuse(exchange, tooLarge(limits), core)
        return .YES
    }
    guard core.hold(count) else {
        refuse(
            exchange,
            .error(
                503, code: "busy", message: "the server holds too many request bodies; retry later",
                headers: ["Retry-After": "2"]), core)
        return .YES
    }
    exchange.heldBytes += count
    if let data {
        data.withMemoryRebound(to: UInt8.self, capacity: count) { bytes in
            exchange.body.append(contentsOf: UnsafeBufferPointer(start: bytes, count: count))
        }
    }
    return .YES
}

/// Drops the body received so far; `response` answers once the body has ended.
private func refuse(_ exchange: HTTPServer.Exchange, _ response: ServerResponse, _ core: HTTPServer.Core) {
    exchange.refusal = response
    exchange.body = []
    core.release(exchange.heldBytes)
    exchange.heldBytes = 0
}

/// The body has ended (or the connection was resumed with the answer).
private func bodyEnded(_ core: HTTPServer.Core, _ exchange: HTTPServer.Exchange, _ connection: OpaquePointer)
    -> MHD_Result
{
    guard exchange.beginHandling() else {
        // Woken by the answer (or already answered).
        if let response = exchange.takeAnswer() { return send(response, on: connection) }
        return .YES
    }
    let connectionKey = key(connection)
    core.connections.setDeadline(connectionKey, 0)
    if let refusal = exchange.refusal {
        _ = exchange.answer(refusal)
        return send(exchange.takeAnswer() ?? refusal, on: connection, close: true)
    }
    let request = ServerRequest(
        method: exchange.method, path: exchange.path, query: exchange.query, headers: exchange.headers,
        body: exchange.body, receivedAt: exchange.receivedAt, clientAddress: exchange.clientAddress,
        peerAddress: exchange.peerAddress)
    exchange.body = []
    core.handler(
        request,
        ServerResponder { [core] response in
            if exchange.answer(response) { core.resume(connectionKey) }
        })
    if let response = exchange.answerOrSuspend({ MHD_suspend_connection(connection) }) {
        return send(response, on: connection)
    }
    return .YES
}

/// Refuses every connection once the server is stopping (libmicrohttpd closes it at once).
let acceptPolicy: MHD_AcceptPolicyCallback = { context, _, _ in
    guard let context else { return .NO }
    return Unmanaged<HTTPServer.Core>.fromOpaque(context).takeUnretainedValue().acceptsConnections
        ? .YES : .NO
}

/// libmicrohttpd's request callback: the head, each piece of the body, its end, and the call after
/// a resume.
let accessHandler: MHD_AccessHandlerCallback = {
    context, connection, url, method, _, uploadData, uploadDataSize, requestContext in
    guard let context, let connection, let uploadDataSize, let requestContext else { return .NO }
    let core = Unmanaged<HTTPServer.Core>.fromOpaque(context).takeUnretainedValue()
    guard let stored = requestContext.pointee else {
        return headArrived(core, connection, url: url, method: method, requestContext: requestContext)
    }
    let exchange = Unmanaged<HTTPServer.Exchange>.fromOpaque(stored).takeUnretainedValue()
    let count = uploadDataSize.pointee
    if count > 0 {
        uploadDataSize.pointee = 0
        return bodyArrived(core, exchange, uploadData, count: count)
    }
    return bodyEnded(core, exchange, connection)
}

private func tooLarge(_ limits: HTTPServer.Configuration) -> ServerResponse {
    .error(
        413, code: "request_too_large", message: "the request body is over \(limits.maximumBodyBytes) bytes")
}

/// A request is over (answered, or its connection gone): its state is freed and the connection's
/// next head is due.
let requestCompleted: MHD_RequestCompletedCallback = { context, connection, requestContext, _ in
    guard let context, let requestContext, let stored = requestContext.pointee else { return }
    let exchange = Unmanaged<HTTPServer.Exchange>.fromOpaque(stored).takeRetainedValue()
    exchange.finish()
    requestContext.pointee = nil
    let core = Unmanaged<HTTPServer.Core>.fromOpaque(context).takeUnretainedValue()
    core.release(exchange.heldBytes)
    let nextHead = ConnectionTable.deadline(in: core.configuration.headerDeadlineSeconds)
    core.connections.requestEnded(connection.map(key) ?? 0, nextHeadBy: nextHead)
}

/// A request line has arrived: its target is kept as sent, before libmicrohttpd decodes it into
/// C strings that would end at a `%00`.
///
/// libmicrohttpd hands the target over as a C string, so a raw NUL byte in it (never sent by an
/// HTTP client; only `%00` is legal) would end it early. The target ends where libmicrohttpd
/// wrote a NUL over the space before the version, which it has checked to be `HTTP/d.d` followed
/// by the line's end; when the bytes after the first NUL are not that, the target held a raw NUL
/// and is kept with it, so ``RequestTarget`` refuses it.
let targetArrived:
    @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?) ->
        UnsafeMutableRawPointer? = { context, uri, connection in
            guard let context, let uri, let connection else { return nil }
            let core = Unmanaged<HTTPServer.Core>.fromOpaque(context).takeUnretainedValue()
            let length = strlen(uri)
            var target = Array(UnsafeRawBufferPointer(start: uri, count: length))
            // The eight bytes of the version and its terminator are there whenever the target ends at
            // `length`; when it does not, they are bytes of the target's rest, all in the line.
            let after = UnsafeRawBufferPointer(start: uri + length + 1, count: 9)
            let isVersion =
                after.prefix(5).elementsEqual("HTTP/".utf8) && after[6] == UInt8(ascii: ".") && after[8] == 0
                && (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(after[5])
                && (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(after[7])
            if !isVersion { target.append(0) }
            core.connections.setTarget(key(connection), target)
            return nil
        }

/// A connection opened or closed: it enters or leaves the ``ConnectionTable``.
let connectionNotified: MHD_NotifyConnectionCallback = { context, connection, _, event in
    guard let context, let connection else { return }
    let core = Unmanaged<HTTPServer.Core>.fromOpaque(context).takeUnretainedValue()
    if event.rawValue == 0 {  // MHD_CONNECTION_NOTIFY_STARTED
        core.connections.opened(
            key(connection), socket: cmhd_connection_fd(connection),
            deadline: ConnectionTable.deadline(in: core.configuration.headerDeadlineSeconds))
    } else {
        core.connections.closed(key(connection))
    }
}
