import FootprintWire
import Testing

@testable import FootprintServer

/// The ClickHouse client's response parser: whole responses in every framing, fed in random
/// splits, give the same response; every bound holds; random and mangled bytes never crash it,
/// and what it accepts stays within its bounds.
struct HTTPResponseParserTests {
    typealias Parser = HTTPResponseParser

    /// Feeds `pieces` one after another, then the end of the stream when `closes`.
    static func parse(_ pieces: [[UInt8]], limits: Parser.Limits = Parser.Limits(), closes: Bool = false)
        throws(Parser.Failure) -> (response: Parser.Response?, extra: Int)
    {
        var parser = Parser(limits: limits)
        for piece in pieces {
            if case .complete(let response, let extra) = try parser.consume(piece) {
                return (response, extra)
            }
        }
        return closes ? (try parser.finish(), 0) : (nil, 0)
    }

    /// `bytes` cut at random points into 1 to 8 pieces.
    static func split(_ bytes: [UInt8], using random: inout SeededRandom) -> [[UInt8]] {
        let cuts = (0..<Int.random(in: 0...7, using: &random)).map { _ in
            Int.random(in: 0...bytes.count, using: &random)
        }
        var pieces: [[UInt8]] = []
        var start = 0
        for cut in cuts.sorted() + [bytes.count] {
            pieces.append(Array(bytes[start..<cut]))
            start = cut
        }
        return pieces
    }

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func aContentLengthBodyIsReadAndTheConnectionKeptAlive() throws {
        let (response, extra) = try Self.parse([
            Self.bytes(
                "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-ClickHouse-Exception-Code:  62 \r\n\r\nhello")
        ])
        #expect(response?.status == 200)
        #expect(response?.body == Self.bytes("hello"))
        #expect(response?.header("x-clickhouse-exception-code") == "62")
        #expect(response?.keepsAlive == true)
        #expect(extra == 0)
    }

    @Test func aChunkedBodyIsJoinedWithExtensionsAndTrailersDropped() throws {
        let (response, _) = try Self.parse([
            Self.bytes(
                "HTTP/1.1 500 Internal Server Error\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "4;name=x\r\nCode\r\n13 \r\n: 62, e.displayText\r\n0\r\nX-Trailer: 1\r\n\r\n")
        ])
        #expect(response?.status == 500)
        #expect(response?.body == Self.bytes("Code: 62, e.displayText"))
    }

    @Test func aBodyToTheEndOfTheStreamEndsWithIt() throws {
        let (response, _) = try Self.parse([Self.bytes("HTTP/1.0 200 OK\r\n\r\nall of it")], closes: true)
        #expect(response?.body == Self.bytes("all of it"))
        #expect(response?.keepsAlive == false)
    }

    @Test func interimAnswersAreSkippedAndCloseIsHonoured() throws {
        let (response, extra) = try Self.parse([
            Self.bytes("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\nConnection: Close\r\n\r\nX")
        ])
        #expect(response?.status == 204)
        #expect(response?.body == [])
        #expect(response?.keepsAlive == false)
        #expect(extra == 1)
    }

    @Test(arguments: [
        ("HTTP/2 200 OK\r\n\r\n", "malformed"), ("HTTP/1.1 20 OK\r\n\r\n", "malformed"),
        ("HTTP/1.1 700 Odd\r\n\r\n", "malformed"), ("HTTP/1.1 200 OK\r\nNo colon\r\n\r\n", "malformed"),
        ("HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n", "malformed"),
        ("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "malformed"),
        ("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", "malformed"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", "malformed"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "malformed"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n", "malformed"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffff\r\n", "bodyTooLarge"),
        ("HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\n", "bodyTooLarge"),
        ("HTTP/1.1 200 OK\r\nContent-Length: 1025\r\n\r\n", "bodyTooLarge"),
    ])
    func malformedOrOversizedAnswersFail(text: String, expected: String) {
        var limits = Parser.Limits()
        limits.maximumBodyBytes = 1_024
        do {
            _ = try Self.parse([Self.bytes(text)], limits: limits)
            Issue.record("accepted \(text.debugDescription)")
        } catch {
            #expect(String(describing: error).hasPrefix(expected), "\(error)")
        }
    }

    @Test func everyBoundHolds() {
        var limits = Parser.Limits()
        limits.maximumHeadBytes = 200
        limits.maximumHeaderCount = 3
        limits.maximumLineBytes = 16
        limits.maximumBodyBytes = 100
        let head = "HTTP/1.1 200 OK\r\n"
        let cases: [(String, Parser.Failure, Bool)] = [
            (head + "A: " + String(repeating: "x", count: 300), .headTooLarge, false),
            (head + "A: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n", .headTooLarge, false),
            (
                head + "Transfer-Encoding: chunked\r\n\r\n" + String(repeating: "0", count: 40),
                .headTooLarge, false
            ),
            (
                head + "Transfer-Encoding: chunked\r\n\r\n40\r\n" + String(repeating: "x", count: 64)
                    + "\r\n40\r\n",
                .bodyTooLarge, false
            ),
            (head + "\r\n" + String(repeating: "x", count: 101), .bodyTooLarge, false),
            (head + "Content-Length: 10\r\n\r\nshort", .truncated, true),
        ]
        for (text, failure, closes) in cases {
            #expect(throws: failure, "\(text.prefix(60).debugDescription)") {
                _ = try Self.parse([Self.bytes(text)], limits: limits, closes: closes)
            }
        }
    }

    /// A random response in one of the three framings, and what it should parse to.
    static func randomResponse(using random: inout SeededRandom) -> (
        bytes: [UInt8], expected: Parser.Response, closes: Bool
    ) {
        // Any final status but 204 and 304, which have no body.
        var status = Int.random(in: 200...599, using: &random)
        if status == 204 || status == 304 { status += 1 }
        let body = (0..<Int.random(in: 0...3_000, using: &random)).map { _ in
            UInt8.random(in: 0...255, using: &random)
        }
        var headers: [(name: String, value: String)] = (0..<Int.random(in: 0...5, using: &random)).map {
            ("X-Header-\($0)", String(repeating: "v", count: Int.random(in: 0...40, using: &random)))
        }
        var bytes: [UInt8] = []
        var closes = false
        switch Int.random(in: 0...2, using: &random) {
        case 0:
            headers.append(("Content-Length", String(body.count)))
            bytes = Self.bytes(Self.head(status, headers)) + body
        case 1:
            headers.append(("Transfer-Encoding", "chunked"))
            bytes = Self.bytes(Self.head(status, headers))
            var rest = body[...]
            while !rest.isEmpty {
                let size = Int.random(in: 1...max(1, rest.count), using: &random)
                bytes += Self.bytes(String(size, radix: 16, uppercase: Bool.random(using: &random)) + "\r\n")
                bytes += rest.prefix(size) + Self.bytes("\r\n")
                rest = rest.dropFirst(size)
            }
            bytes += Self.bytes("0\r\n\r\n")
        default:
            closes = true
            bytes = Self.bytes(Self.head(status, headers)) + body
        }
        return (
            bytes, Parser.Response(status: status, headers: headers, body: body, keepsAlive: !closes), closes
        )
    }

    static func head(_ status: Int, _ headers: [(name: String, value: String)]) -> String {
        "HTTP/1.1 \(status) Whatever\r\n" + headers.map { "\($0.name): \($0.value)\r\n" }.joined() + "\r\n"
    }

    @Test(arguments: 1...8 as ClosedRange<UInt64>) func anyResponseInAnySplitParsesTheSame(seed: UInt64)
        throws
    {
        var random = SeededRandom(seed: seed)
        for _ in 0..<200 {
            let (bytes, expected, closes) = Self.randomResponse(using: &random)
            let whole = try Self.parse([bytes], closes: closes)
            let pieces = try Self.parse(Self.split(bytes, using: &random), closes: closes)
            let byteByByte = try Self.parse(bytes.map { [$0] }, closes: closes)
            #expect(whole.response == expected, "seed \(seed)")
            #expect(pieces.response == expected, "seed \(seed)")
            #expect(byteByByte.response == expected, "seed \(seed)")
        }
    }

    /// Random bytes, and valid responses with bytes changed, cut off or repeated: the parser
    /// answers (needs more, a response, a failure) and never crashes; what it returns stays
    /// within its limits.
    @Test(arguments: 1...8 as ClosedRange<UInt64>) func mangledBytesNeverCrashOrPassTheLimits(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var limits = Parser.Limits()
        limits.maximumHeadBytes = 512
        limits.maximumHeaderCount = 6
        limits.maximumLineBytes = 32
        limits.maximumBodyBytes = 2_000
        for round in 0..<400 {
            var bytes = Self.randomResponse(using: &random).bytes
            switch round % 4 {
            case 0:
                bytes = (0..<Int.random(in: 0...600, using: &random)).map { _ in
                    UInt8.random(in: 0...255, using: &random)
                }
            case 1:
                for _ in 0..<Int.random(in: 1...6, using: &random) where !bytes.isEmpty {
                    bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(
                        in: 0...255, using: &random)
                }
            case 2:
                bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &random)))
            default:
                bytes += bytes
            }
            do {
                let (response, _) = try Self.parse(
                    Self.split(bytes, using: &random), limits: limits, closes: Bool.random(using: &random))
                if let response {
                    #expect(response.body.count <= limits.maximumBodyBytes)
                    #expect(response.headers.count <= limits.maximumHeaderCount)
                    #expect((100...599).contains(response.status))
                }
            } catch {
                // A refusal is an answer.
            }
        }
    }
}
