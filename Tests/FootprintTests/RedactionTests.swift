import Testing

@testable import Footprint

/// Redaction of captured text.
struct RedactionTests {
    @Test(arguments: [
        ("Contact ann.lee+shop@example.co.uk now", "Contact [email] now"),
        ("a@b.io", "[email]"),
        ("Card 4111 1111 1111 1111", "Card [card]"),
        ("4111-1111-1111-1111", "[card]"),
        ("Call +44 20 7946 0958", "Call [phone]"),
        ("Call (555) 123-4567.", "Call [phone]."),
        ("555-1234", "[phone]"),
        ("0612345678", "[phone]"),
        ("Buy 2 for $10", "Buy 2 for $10"),
        ("Order on 2024-01-15", "Order on 2024-01-15"),
        ("Size 42", "Size 42"),
        ("iPhone 15 Pro 256GB", "iPhone 15 Pro 256GB"),
        ("@handle and user@localhost", "@handle and user@localhost"),
        ("Add to cart", "Add to cart"),
        ("", ""),
    ])
    func redacts(text: String, expected: String) {
        #expect(TextRedactor.redact(text) == expected)
    }

    @Test func aLongNumberFailingLuhnIsStillAPhoneOrLeftWhenTooLong() {
        #expect(TextRedactor.redact("4111 1111 1111 1112") == "4111 1111 1111 1112")
        #expect(TextRedactor.redact("123456789") == "[phone]")
    }

    @Test func randomTextNeverGrowsDigitsBackAndNeverCrashes() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("ab1 2-3.4@5(6)7+89.c@d.ef") + ["é", "🙂"]
        for _ in 0..<500 {
            let text = String(
                (0..<Int.random(in: 0...40, using: &generator)).map { _ in
                    alphabet.randomElement(using: &generator)!
                })
            let redacted = TextRedactor.redact(text)
            #expect(TextRedactor.redact(redacted) == redacted, "redaction is idempotent for \(text)")
        }
    }
}
