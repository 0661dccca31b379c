/// The text of a connect link, as the server renders it for the dashboard (link and QR code) and
/// the SDK's `ConnectLink` reads it: the token in `token`, the collector's base URL in `server`.
///
/// - custom scheme: `<scheme>://footprint/connect?token=T&server=S`
/// - universal link: `https://<host>/<prefix>/footprint/connect?token=T&server=S`
public enum ConnectLinkFormat {
    /// The host of the custom-scheme form.
    public static let host = "footprint"
    /// The path of the custom-scheme form; the universal-link form's path ends with
    /// `/footprint/connect`.
    public static let path = "/connect"

    /// `<scheme>://footprint/connect?token=…&server=…`.
    /// - Parameters:
    ///   - scheme: the app's URL scheme (`myshop`).
    ///   - token: the connect session's token.
    ///   - server: the collector's base URL the app is configured with; `nil` leaves it out.
    public static func customSchemeLink(scheme: String, token: String, server: String?) -> String {
        "\(scheme)://\(host)\(path)?" + query(token: token, server: server)
    }

    /// `<base>/footprint/connect?token=…&server=…` for a universal link whose domain and prefix
    /// are `base` (`https://links.example.com/app`).
    public static func universalLink(base: String, token: String, server: String?) -> String {
        var base = base
        while base.hasSuffix("/") { base.removeLast() }
        return "\(base)/\(host)\(path)?" + query(token: token, server: server)
    }

    private static func query(token: String, server: String?) -> String {
        var query = "token=" + percentEncoded(token)
        if let server { query += "&server=" + percentEncoded(server) }
        return query
    }

    /// `text` with every byte outside RFC 3986's unreserved characters percent-encoded.
    public static func percentEncoded(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var output: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                output.append(byte)
            default:
                output += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
