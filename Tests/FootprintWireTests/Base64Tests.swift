import FootprintWire
import Testing

struct Base64Tests {
    @Test(arguments: [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="),
        ("foobar", "Zm9vYmFy"),
    ])
    func encodesAndDecodesTheRFCVectors(plain: String, encoded: String) {
        #expect(Base64.encode(Array(plain.utf8)) == encoded)
        #expect(Base64.decode(encoded) == Array(plain.utf8))
    }

    @Test func roundTripsEveryByteValue() {
        let bytes = (0...255).map { UInt8($0) } + [0xFF, 0xFE]
        #expect(Base64.decode(Base64.encode(bytes)) == bytes)
    }

    @Test(arguments: ["Zg=", "Zg", "Z===", "Zh==", "Zm9=", "Zm 9", "=Zm9", "Zg==Zg==", "Zm9v\n", "Zm-v"])
    func refusesWhatIsNotCanonical(text: String) {
        #expect(Base64.decode(text) == nil)
    }
}
