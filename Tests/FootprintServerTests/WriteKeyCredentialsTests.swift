import FootprintWire
import Testing

@testable import FootprintServer

struct WriteKeyCredentialsTests {
    @Test(arguments: [
        ("Basic Zm9vOg==", "foo"),  // foo:
        ("Basic Zm9v", "foo"),  // foo (no colon)
        ("basic Zm9vOmJhcg==", "foo"),  // foo:bar
        ("Bearer fp_123", "fp_123"),
    ])
    func readsTheKey(_ header: String, _ key: String) {
        #expect(WriteKeyCredentials.writeKey(authorization: header) == key)
    }

    @Test(arguments: ["", "Basic", "Basic !!!", "Basic Og==", "Digest abc"])
    func refusesWhatIsNotAKey(_ header: String) {
        #expect(WriteKeyCredentials.writeKey(authorization: header) == nil)
    }
}
