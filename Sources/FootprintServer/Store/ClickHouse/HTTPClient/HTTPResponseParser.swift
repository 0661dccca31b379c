/// Reads one HTTP/1.1 response from bytes as they arrive, in any split: the status line, the
/// headers, then a body sized by `Content-Length`, sent in chunks (`Transfer-Encoding: chunked`,
/// trailers read and dropped) or running to the end of the connection. No I/O: the connection
/// feeds it bytes (``consume(_:)``) and the end of the stream (``finish()``), and it answers
/// what it needs next.
///
/// Everything it reads is bounded: the status line and the headers together by
/// ``Limits/maximumHeadBytes`` and ``Limits/maximumHeaderCount``, a chunk-size line by
/// ``Limits/maximumLineBytes``, the body by ``Limits/maximumBodyBytes``; anything past a bound,
/// and anything that is not HTTP/1.x, fails. Interim answers (`100 Continue`) are skipped.
struct HTTPResponseParser {
    /// The bounds of what one response may hold.
    struct Limits: Sendable, Equatable {
        /// The status line and every header line together, in bytes. Default 64 KiB.
        var maximumHeadBytes = 64 << 10
        /// How many header lines. Default 100.
        var maximumHeaderCount = 100
        /// A chunk-size line (the size, its extensions), in bytes. Default 1,024.
        var maximumLineBytes = 1_024
        /// The body, in bytes (chunked or not). Default 512 MiB.
        var maximumBodyBytes = 512 << 20
    }

    /// A complete response.
    struct Response: Sendable, Equatable {
        /// The status code (100–599).
        var status: Int
        /// The header lines in the order received, names as sent.
        var headers: [(name: String, value: String)]
        /// The body, de-chunked.
        var body: [UInt8]
        /// Whether the connection may carry another request: HTTP/1.1 without `Connection:
        /// close`, and a body whose end the response itself marked.
        var keepsAlive: Bool

        /// The value of the first header named `name` (case-insensitive), trimmed.
        func header(_ name: String) -> String? {
            let lowered = name.lowercased()
            return headers.first { $0.name.lowercased() == lowered }?.value
        }

        static func == (left: Response, right: Response) -> Bool {
            left.status == right.status && left.body == right.body && left.keepsAlive == right.keepsAlive
                && left.headers.map(\.name) == right.headers.map(\.name)
                && left.headers.map(\.value) == right.headers.map(\.value)
        }
    }

    /// Why the bytes are not a response this parser accepts.
    enum Failure: Error, Equatable, Sendable {
        /// Not HTTP/1.x, or a malformed line or size; says which.
        case malformed(String)
        /// The status line and headers pass ``Limits/maximumHeadBytes`` or
        /// ``Limits/maximumHeaderCount``, or a chunk-size line ``Limits/maximumLineBytes``.
        case headTooLarge
        /// The body passes ``Limits/maximumBodyBytes``.
        case bodyTooLarge
        /// The stream ended before the response did.
        case truncated
    }

    /// What the parser wants after the bytes it was given.
    enum Progress: Equatable, Sendable {
        /// More bytes (or the end of the stream).
        case needsMore
        /// The response is complete; `extra` bytes of those given came after it (another answer
        /// nobody asked for: the connection must not be used again).
        case complete(Response, extra: Int)
    }

    /// Where in the response the next byte falls.
    private enum State: Equatable {
        case statusLine
        case headerLine
        case body(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailerLine
        case untilClose
        case done
        case failed(Failure)
    }

    let limits: Limits
    private var state = State.statusLine
    /// The line being read (status, header, chunk size or trailer), without its line break.
    private var line: [UInt8] = []
    /// Bytes of the head read so far (status line and headers, line breaks included).
    private var headBytes = 0
    private var status = 0
    private var http11 = false
    private var headers: [(name: String, value: String)] = []
    private var body: [UInt8] = []

    init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Reads `bytes`, the next ones of the stream.
    /// - Returns: ``Progress/needsMore``, or the response once complete (then the parser is
    ///   spent; make a new one for the next response).
    /// - Throws: a ``Failure``; the parser stays failed.
    mutating func consume(_ bytes: some Collection<UInt8>) throws(Failure) -> Progress {
        var index = bytes.startIndex
        while index != bytes.endIndex {
            switch state {
            case .failed(let failure):
                throw failure
            case .done:
                return .complete(
                    response(keepsAlive: keepsAlive), extra: bytes.distance(from: index, to: bytes.endIndex))
            case .body(let remaining):
                let left = appendBody(bytes, from: &index, upTo: remaining)
                state = left == 0 ? .done : .body(remaining: left)
            case .chunkData(let remaining):
                let left = appendBody(bytes, from: &index, upTo: remaining)
                state = left == 0 ? .chunkDataEnd : .chunkData(remaining: left)
            case .untilClose:
                let count = bytes.distance(from: index, to: bytes.endIndex)
                try check(body.count + count <= limits.maximumBodyBytes, else: .bodyTooLarge)
                body.append(contentsOf: bytes[index...])
                index = bytes.endIndex
            case .statusLine, .headerLine, .chunkSize, .chunkDataEnd, .trailerLine:
                let byte = bytes[index]
                index = bytes.index(after: index)
                try take(lineByte: byte)
            }
        }
        if state == .done {
            return .complete(response(keepsAlive: keepsAlive), extra: 0)
        }
        if case .failed(let failure) = state { throw failure }
        return .needsMore
    }

    /// The end of the stream: completes a body that runs to it.
    /// - Returns: the response when the stream's end completes it.
    /// - Throws: ``Failure/truncated`` when the response is not complete.
    mutating func finish() throws(Failure) -> Response {
        switch state {
        case .done:
            return response(keepsAlive: keepsAlive)
        case .untilClose:
            state = .done
            return response(keepsAlive: false)
        case .failed(let failure):
            throw failure
        default:
            state = .failed(.truncated)
            throw .truncated
        }
    }

    /// Appends up to `remaining` bytes of `bytes` from `index` (moved past them) to the body.
    /// - Returns: how many of the `remaining` are still to come.
    private mutating func appendBody<Bytes: Collection<UInt8>>(
        _ bytes: Bytes, from index: inout Bytes.Index, upTo remaining: Int
    ) -> Int {
        let take = min(remaining, bytes.distance(from: index, to: bytes.endIndex))
        let end = bytes.index(index, offsetBy: take)
        body.append(contentsOf: bytes[index..<end])
        index = end
        return remaining - take
    }

    // MARK: Lines

    /// Whether the line being read belongs to the head (bounded by ``Limits/maximumHeadBytes``).
    private var readsHead: Bool { state == .statusLine || state == .headerLine }

    /// One byte of a line: a line break ends the line (CRLF, or a bare LF).
    private mutating func take(lineByte byte: UInt8) throws(Failure) {
        if readsHead {
            headBytes += 1
            try check(headBytes <= limits.maximumHeadBytes, else: .headTooLarge)
        } else {
            try check(line.count < limits.maximumLineBytes, else: .headTooLarge)
        }
        guard byte == 10 else {
            line.append(byte)
            return
        }
        if line.last == 13 { line.removeLast() }
        let finished = line
        line.removeAll(keepingCapacity: true)
        try end(line: finished)
    }

    private mutating func end(line: [UInt8]) throws(Failure) {
        switch state {
        case .statusLine:
            try readStatusLine(line)
        case .headerLine:
            if line.isEmpty {
                try endHead()
            } else {
                try readHeader(line)
            }
        case .chunkSize:
            try readChunkSize(line)
        case .chunkDataEnd:
            try check(line.isEmpty, else: .malformed("no line break after a chunk"))
            state = .chunkSize
        case .trailerLine:
            if line.isEmpty { state = .done }
        default:
            break
        }
    }

    /// `HTTP/1.x SSS reason`.
    private mutating func readStatusLine(_ line: [UInt8]) throws(Failure) {
        let prefix = Array("HTTP/1.".utf8)
        try check(
            line.count >= 12 && Array(line[0..<7]) == prefix && (line[7] == 48 || line[7] == 49)
                && line[8] == 32,
            else: .malformed("not an HTTP/1.x status line"))
        let digits = line[9..<12]
        try check(
            digits.allSatisfy { $0 >= 48 && $0 <= 57 } && (line.count == 12 || line[12] == 32),
            else: .malformed("no three-digit status"))
        status = digits.reduce(0) { $0 * 10 + Int($1 - 48) }
        try check(status >= 100 && status <= 599, else: .malformed("status \(status) out of range"))
        http11 = line[7] == 49
        state = .headerLine
    }

    /// `Name: value`: a token before the colon, the value trimmed of spaces and tabs.
    private mutating func readHeader(_ line: [UInt8]) throws(Failure) {
        try check(headers.count < limits.maximumHeaderCount, else: .headTooLarge)
        guard let colon = line.firstIndex(of: 58), colon > 0 else {
            throw fail(.malformed("a header line without a name"))
        }
        let name = line[..<colon]
        try check(name.allSatisfy(Self.isTokenByte), else: .malformed("a header name that is not a token"))
        var value = line[(colon + 1)...]
        while let first = value.first, first == 32 || first == 9 { value.removeFirst() }
        while let last = value.last, last == 32 || last == 9 { value.removeLast() }
        headers.append((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
    }

    /// The blank line after the headers: decides how the body is delimited.
    private mutating func endHead() throws(Failure) {
        if status < 200 {
            // An interim answer: the real one follows.
            headers.removeAll()
            state = .statusLine
            return
        }
        let codings = headers.filter { $0.name.lowercased() == "transfer-encoding" }.map {
            $0.value.lowercased()
        }
        let lengths = headers.filter { $0.name.lowercased() == "content-length" }.map(\.value)
        if status == 204 || status == 304 {
            state = .done
        } else if !codings.isEmpty {
            try check(
                codings.count == 1 && codings[0] == "chunked" && lengths.isEmpty,
                else: .malformed("a transfer coding other than chunked alone"))
            state = .chunkSize
        } else if let first = lengths.first {
            try check(lengths.allSatisfy { $0 == first }, else: .malformed("conflicting Content-Length"))
            guard let length = Self.decimal(first) else {
                throw fail(.malformed("a Content-Length that is not a number"))
            }
            try check(length <= limits.maximumBodyBytes, else: .bodyTooLarge)
            body.reserveCapacity(length)
            state = length == 0 ? .done : .body(remaining: length)
        } else {
            state = .untilClose
        }
    }

    /// A chunk's size in hexadecimal, extensions after `;` ignored; 0 ends the body.
    private mutating func readChunkSize(_ line: [UInt8]) throws(Failure) {
        var digits = line.prefix { $0 != 59 }[...]
        while let last = digits.last, last == 32 || last == 9 { digits.removeLast() }
        guard let size = Self.hexadecimal(digits) else {
            throw fail(.malformed("a chunk size that is not a number"))
        }
        try check(size <= limits.maximumBodyBytes - body.count, else: .bodyTooLarge)
        state = size == 0 ? .trailerLine : .chunkData(remaining: size)
    }

    // MARK: Helpers

    /// Whether the connection stays open after this response.
    private var keepsAlive: Bool {
        guard http11 else { return false }
        return !headers.contains {
            $0.name.lowercased() == "connection"
                && $0.value.lowercased().split(separator: ",").contains {
                    $0.drop { $0 == " " || $0 == "\t" }.prefix { $0 != " " && $0 != "\t" } == "close"
                }
        }
    }

    private func response(keepsAlive: Bool) -> Response {
        Response(status: status, headers: headers, body: body, keepsAlive: keepsAlive)
    }

    private mutating func fail(_ failure: Failure) -> Failure {
        state = .failed(failure)
        return failure
    }

    private mutating func check(_ condition: Bool, else failure: Failure) throws(Failure) {
        if !condition { throw fail(failure) }
    }

    /// A header name's bytes (RFC 9110's `tchar`).
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 48...57, 65...90, 97...122: true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default: false
        }
    }

    /// A non-negative decimal of at most 18 digits.
    private static func decimal(_ text: String) -> Int? {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= 18, bytes.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
            return nil
        }
        return bytes.reduce(0) { $0 * 10 + Int($1 - 48) }
    }

    /// A non-negative hexadecimal of at most 15 digits.
    private static func hexadecimal(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard !bytes.isEmpty, bytes.count <= 15 else { return nil }
        var value = 0
        for byte in bytes {
            let digit: Int
            switch byte {
            case 48...57: digit = Int(byte - 48)
            case 65...70: digit = Int(byte - 55)
            case 97...102: digit = Int(byte - 87)
            default: return nil
            }
            value = value * 16 + digit
        }
        return value
    }
}
