import FootprintWire
import Testing

struct JSONParserTests {
    let parser = JSONParser()

    @Test func parsesEveryKindOfValue() throws {
        let value = try parser.parse(#"{"a":[1,-2.5,true,false,null,"x\u00e9\ud83d\ude00"],"b":{}}"#)
        #expect(value == ["a": [1, -2.5, true, false, nil, "xé😀"], "b": [:]])
    }

    @Test func roundTripsThroughTheWriter() throws {
        let value: JSONValue = ["s": "quote \" backslash \\ newline \n tab \t", "n": 3, "d": 0.5, "e": 1e20]
        #expect(try parser.parse(JSONWriter.bytes(value)) == value)
    }

    @Test(arguments: [
        ("", "empty input"),
        ("{\"a\":1", "unexpected end of input in an object"),
        ("[1,]", "unexpected character ']'"),
        ("01", "leading zeros are not allowed"),
        ("{\"a\" 1}", "expected ':' after key \"a\""),
        ("\"\\ud800\"", "unpaired surrogate in a string"),
        ("1 2", "unexpected content after the JSON value"),
        ("\"a\u{01}\"", "control character in a string"),
        ("1e999", "number out of range"),
    ])
    func rejectsMalformedTextWithAReason(text: String, reason: String) {
        #expect(throws: JSONParseError.self) { try parser.parse(text) }
        do {
            _ = try parser.parse(text)
        } catch {
            #expect(error.reason == reason)
        }
    }

    @Test func rejectsInvalidUTF8() {
        #expect(throws: JSONParseError.self) { try parser.parse([0x22, 0xFF, 0xFE, 0x22]) }
    }

    @Test func acceptsExactlyTheValidUTF8TheStandardLibraryAccepts() throws {
        var generator = SeededRandom(seed: 3)
        let interesting: [UInt8] = [
            0x41, 0x7F, 0x80, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF, 0x9F,
            0xA0, 0x8F, 0x90,
        ]
        for _ in 0..<50_000 {
            let length = Int(generator.next() % 6)
            let bytes = (0..<length).map { _ in interesting[Int(generator.next() % UInt64(interesting.count))]
            }
            let expected = String(validating: bytes, as: UTF8.self)
            let parsed = try? parser.parse([0x22] + bytes + [0x22])
            #expect(parsed == expected.map(JSONValue.string), "\(bytes)")
        }
        // Every scalar's own encoding round-trips, including 4-byte ones.
        for text in ["é", "€", "😀", "\u{10FFFF}", "\u{D7FF}", "\u{E000}"] {
            #expect(try parser.parse(Array("\"\(text)\"".utf8)) == .string(text))
        }
    }

    @Test func namesLineAndColumn() {
        do {
            _ = try parser.parse("{\n  \"a\": tru\n}")
            Issue.record("expected an error")
        } catch {
            #expect(error.line == 2)
            #expect(error.column == 8)
        }
    }

    @Test func refusesDeepNesting() {
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(throws: JSONParseError.self) { try parser.parse(deep) }
        let fine = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect((try? parser.parse(fine)) != nil)
    }

    @Test func survivesRandomBytes() throws {
        var generator = SeededRandom(seed: 42)
        let alphabet = Array("{}[]\",:0123456789.eE-+tfnrul \\abc".utf8)
        for _ in 0..<20_000 {
            let length = Int(generator.next() % 24)
            let bytes = (0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }
            if let value = try? parser.parse(bytes) {
                #expect(try parser.parse(JSONWriter.bytes(value)) == value)
            }
        }
    }

    @Test func nestedObjectsKeepTheirOwnMembersAndARepeatedKeyKeepsItsLastValue() throws {
        let text = #"{"a":{"b":1,"c":{"d":[{"e":2},{}],"b":3}},"a2":{},"f":4,"f":5,"g":[{"h":{"i":6}}]}"#
        let expected: JSONValue = [
            "a": ["b": 1, "c": ["d": [["e": 2], [:]], "b": 3]], "a2": [:], "f": 5, "g": [["h": ["i": 6]]],
        ]
        #expect(try JSONParser().parse(text) == expected)
        #expect(throws: JSONParseError.self) { try JSONParser().parse(#"{"a":{"b":1,"c":2"#) }
        #expect(throws: JSONParseError.self) { try JSONParser().parse(#"{"a":{"b":1},"c":}"#) }
    }
}
