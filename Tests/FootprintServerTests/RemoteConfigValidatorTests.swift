import FootprintWire
import Testing

@testable import FootprintServer

struct RemoteConfigValidatorTests {
    @Test func acceptsATrackingPlan() throws {
        let text = #"{"version": 1, "pages": {"HomeViewController": {"name": "Home"}}, "events": []}"#
        let (plan, document) = try RemoteConfigValidator.validate(Array(text.utf8))
        #expect(plan.pages["HomeViewController"]?.name == "Home")
        #expect(try TrackingPlan(jsonBytes: Array(document.utf8)) == plan)
    }

    @Test(arguments: [
        (#"[]"#, "not a valid tracking plan"),
        (#"{"version": "3"}"#, "version"),
        (#"{"version": 1.5}"#, "version"),
        (#"{}"#, "version"),
        (#"{"version": 1, "events": [{"id": "e1"}]}"#, "events[0]"),
        (#"{"version": 1, "colour": "red"}"#, "colour"),
        ("{", "line 1"),
    ])
    func refusesAnythingElseNamingTheFault(_ text: String, fault: String) {
        do {
            _ = try RemoteConfigValidator.validate(Array(text.utf8))
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.code == .invalidConfig)
            #expect(error.message.contains(fault), "\(error.message)")
        }
    }
}
