import FootprintFuzzing
import FootprintServer
import FootprintWire
import Testing

/// ``RequestTarget`` and ``PercentDecoding``: what a client sent is read exactly or refused,
/// naming the part.
struct RequestTargetTests {
    @Test func aNULIsKeptAsACharacterNotTheEndOfTheText() throws {
        let target = try RequestTarget(Array("/v1/people/alice%00x?page=Cart%00Promo".utf8))
        #expect(target.path == "/v1/people/alice\u{0}x")
        #expect(target.query == ["page": "Cart\u{0}Promo"])
        #expect(target.path.utf8.count == "/v1/people/alice".utf8.count + 2)
    }

    @Test func aPlusIsASpaceInTheQueryAndAPlusInThePath() throws {
        let target = try RequestTarget(Array("/a+b%20c?page=A+B&os=A%20B&sku=A%2BB".utf8))
        #expect(target.path == "/a+b c")
        #expect(target.query == ["page": "A B", "os": "A B", "sku": "A+B"])
    }

    @Test(arguments: [
        ("/v1/people/alice%", "path"), ("/v1/people/%4", "path"), ("/v1/people/%zz", "path"),
        ("/v1/people/%C0%80", "path"), ("/v1/people/%FF", "path"), ("/v1/people/%ED%A0%80", "path"),
        ("/x?page=A%", "\"page\""), ("/x?page=%E0%80%80", "\"page\""), ("/x?page=%G1", "\"page\""),
        ("/x?pa%ge=1", "parameter name"), ("/x?page=A&page=B", "\"page\" is given more than once"),
        ("/x?page=A&pa%67e=B", "\"page\" is given more than once"), ("x/y", "must start with /"),
    ])
    func whatCannotBeDecodedExactlyIsRefusedNamingThePart(_ target: String, _ named: String) {
        #expect {
            _ = try RequestTarget(Array(target.utf8))
        } throws: { error in
            guard let error = error as? ServerError else { return false }
            let code = target.contains("?") ? ServerError.Code.invalidQuery : .invalidPath
            return error.code == code && error.message.contains(named)
        }
    }

    @Test func aRawNULByteInTheTargetIsRefused() {
        #expect(throws: ServerError.self) {
            try RequestTarget([UInt8]("/v1/people/alice".utf8) + [0] + [0x78])
        }
    }

    /// Found by the fuzzer: a combining mark after a slash makes one character with it, so a
    /// path is checked by its bytes, and the slash is still where the path starts.
    @Test func aCombiningMarkAfterASlashKeepsThePathsBytes() throws {
        for raw in [[0x2F, 0xD7, 0x84], Array("/%CC%81x".utf8), [0x2F, 0xCC, 0xA4, 0x36, 0x35, 0x2F, 0x2F]]
            as [[UInt8]]
        {
            let target = try RequestTarget(raw)
            #expect(target.path.utf8.first == UInt8(ascii: "/"))
            #expect(!target.path.hasPrefix("/"), "one character: the slash and its mark")
            #expect(FuzzEntry.requestTarget(raw) == target)
        }
    }

    @Test func theAbsoluteFormIsReadAsItsPathAndQuery() throws {
        let target = try RequestTarget(Array("HTTP://127.0.0.1:8080/health?x=1".utf8))
        #expect(target.path == "/health")
        #expect(target.query == ["x": "1"])
        #expect(try RequestTarget(Array("http://host?x=1".utf8)).path == "/")
    }

    @Test func emptyFieldsAndFieldsWithoutAValueAreRead() throws {
        #expect(
            try RequestTarget.fields(Array("a&&b=&c=1=2".utf8), code: .invalidQuery) == [
                "a": "", "b": "", "c": "1=2",
            ])
    }

    @Test func anIdIsRefusedWhenEmptyOrHoldingANUL() throws {
        #expect(try RequestTarget.identifier("alice", name: "person id") == "alice")
        #expect(try RequestTarget.identifier("a/b", name: "person id") == "a/b")
        for bad in ["", "alice\u{0}x", "\u{0}"] {
            #expect(throws: ServerError.self) { try RequestTarget.identifier(bad, name: "person id") }
        }
    }

    /// Any text, percent-encoded byte by byte (or as itself where that is safe), decodes to the
    /// same text: the decoder loses nothing, whatever the input.
    @Test func encodingThenDecodingGivesBackAnyText() throws {
        var generator = SeededRandom(seed: 0x5EED)
        let alphabet: [Unicode.Scalar] = [
            "a", "Z", "0", " ", "+", "%", "&", "=", "?", "/", "\u{0}", "é", "中", "🙂", "\u{7F}",
        ]
        for _ in 0..<2_000 {
            let length = Int(generator.next() % 12)
            var text = ""
            for _ in 0..<length {
                text.unicodeScalars.append(alphabet[Int(generator.next() % UInt64(alphabet.count))])
            }
            var encoded: [UInt8] = []
            for byte in text.utf8 {
                let plain = byte.isASCIIAlphanumeric && generator.next() % 2 == 0
                encoded += plain ? [byte] : Array("%\(byte < 16 ? "0" : "")\(String(byte, radix: 16))".utf8)
            }
            #expect(try PercentDecoding.decode(encoded, plus: .space) == text)
            let target = try RequestTarget(Array("/p/".utf8) + encoded + Array("?v=".utf8) + encoded)
            #expect(target.path == "/p/" + text)
            #expect(target.query["v"] == text)
        }
    }

    /// Random bytes: decoded or refused, never a crash, and what decodes is UTF-8 with every
    /// escape accounted for.
    @Test func randomBytesAreDecodedOrRefused() {
        var generator = SeededRandom(seed: 0xF00D)
        let interesting: [UInt8] = Array("%0+&=?/aF".utf8) + [0x00, 0x80, 0xC0, 0xED, 0xFF]
        for _ in 0..<5_000 {
            let bytes =
                [UInt8(ascii: "/")]
                + (0..<Int(generator.next() % 24)).map { _ in
                    interesting[Int(generator.next() % UInt64(interesting.count))]
                }
            if let target = try? RequestTarget(bytes) {
                #expect(!bytes.contains(0), "a raw NUL byte is never accepted")
                #expect(target.path.hasPrefix("/"))
            }
        }
    }
}

extension UInt8 {
    fileprivate var isASCIIAlphanumeric: Bool {
        (0x30...0x39).contains(self) || (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self)
    }
}
