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

    /// `:fp_123` (the key as the password, the user empty) is not read as the key, and the
    /// refusal says where the key goes instead.
    @Test func aKeyGivenAsTheBasicPasswordIsToldWhereTheKeyGoes() throws {
        let header = "Basic OmZwXzEyMw=="  // :fp_123
        #expect(WriteKeyCredentials.credential(authorization: header) == .passwordOnly)
        #expect(WriteKeyCredentials.writeKey(authorization: header) == nil)
        let refusal = WriteKeyCredentials.missingKey(authorization: header, bodyKeyAccepted: true)
        #expect(refusal.code == "missing_write_key")
        #expect(refusal.response.status == 401)
        let message = try #require(try JSONParser().parse(refusal.response.body)["message"]?.stringValue)
        for place in ["password", "HTTP Basic user", "Authorization: Bearer KEY", "\"writeKey\" in the body"]
        {
            #expect(message.contains(place), "\(message) lacks \(place)")
        }
        let withoutBody = WriteKeyCredentials.missingKey(authorization: header, bodyKeyAccepted: false)
        #expect(!String(decoding: withoutBody.response.body, as: UTF8.self).contains("writeKey"))
    }

    @Test(arguments: [nil, "Basic Og==", "Basic Zm9vOmJhcg=="])
    func otherHeadersAreNotTakenForAKeyInThePassword(_ header: String?) {
        #expect(WriteKeyCredentials.credential(authorization: header) != .passwordOnly)
        let refusal = WriteKeyCredentials.missingKey(authorization: header, bodyKeyAccepted: true)
        #expect(!String(decoding: refusal.response.body, as: UTF8.self).contains("password"))
    }
}
