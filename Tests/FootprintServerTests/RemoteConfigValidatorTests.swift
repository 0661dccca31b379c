import FootprintWire
import Testing

@testable import FootprintServer

struct RemoteConfigValidatorTests {
    @Test func acceptsAnObjectWithAnIntegerVersion() throws {
        let (_, version) = try RemoteConfigValidator.validate(Array(#"{"version": 3, "events": []}"#.utf8))
        #expect(version == 3)
    }

    @Test(arguments: [#"[]"#, #"{"version": "3"}"#, #"{"version": 1.5}"#, #"{}"#, #"{"version": 0}"#, "{"])
    func refusesAnythingElse(_ text: String) {
        #expect(throws: ServerError.self) { try RemoteConfigValidator.validate(Array(text.utf8)) }
    }
}
