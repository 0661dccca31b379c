import FootprintWire
import Foundation

/// An IPv4 or IPv6 address, or a block of them in CIDR notation (`10.0.0.0/8`, `2001:db8::/32`,
/// `192.0.2.7`): the proxies ``HTTPServer/Configuration/trustedProxies`` lists.
public struct AddressRange: Sendable, Hashable, CustomStringConvertible {
    /// The network's address bytes (4 or 16).
    let bytes: [UInt8]
    /// The bits of ``bytes`` that must match.
    let prefixLength: Int

    /// Parses `text`; throws ``ServerError/Code/invalidAddress`` for anything else.
    public init(_ text: String) throws(ServerError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count <= 2, let bytes = Self.parse(String(parts[0])) else {
            throw ServerError(
                code: .invalidAddress, message: "\(text.prefix(80)) is not an IP address or CIDR block")
        }
        let bits = bytes.count * 8
        var prefixLength = bits
        if parts.count == 2 {
            guard let length = Int(parts[1]), (0...bits).contains(length) else {
                throw ServerError(
                    code: .invalidAddress, message: "\(text.prefix(80)): the prefix length must be 0–\(bits)")
            }
            prefixLength = length
        }
        self.bytes = bytes
        self.prefixLength = prefixLength
    }

    /// Whether `address` (numeric text; an IPv4 address never matches an IPv6 block) is inside.
    public func contains(_ address: String) -> Bool {
        guard let candidate = Self.parse(address), candidate.count == bytes.count else { return false }
        var remaining = prefixLength
        for index in bytes.indices where remaining > 0 {
            let mask: UInt8 = remaining >= 8 ? 0xff : ~(0xff >> UInt8(remaining))
            if candidate[index] & mask != bytes[index] & mask { return false }
            remaining -= 8
        }
        return true
    }

    public var description: String {
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        _ = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &text, socklen_t(text.count)) }
        let address = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return prefixLength == bytes.count * 8 ? address : "\(address)/\(prefixLength)"
    }

    /// The bytes of a numeric IPv4 (4) or IPv6 (16) address; an IPv4-mapped IPv6 address as IPv4.
    static func parse(_ text: String) -> [UInt8]? {
        var ipv4 = in_addr()
        if inet_pton(AF_INET, text, &ipv4) == 1 { return withUnsafeBytes(of: ipv4) { Array($0) } }
        var ipv6 = in6_addr()
        guard inet_pton(AF_INET6, text, &ipv6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: ipv6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {
            return Array(bytes[12...])
        }
        return bytes
    }
}

extension AddressRange {
    /// The client's address for a request that came from `peer`: the peer itself, unless the peer
    /// is one of `trusted`; then the rightmost address of `X-Forwarded-For` that is not a trusted
    /// proxy (the one the nearest trusted proxy saw; what is left of it the client may have
    /// written), or the leftmost when every hop is trusted. A hop that is not an IP address
    /// stops the walk and the peer's address is kept.
    /// - Parameters:
    ///   - peer: the numeric address of the connection's other end.
    ///   - forwardedFor: the `X-Forwarded-For` header (its lines joined with commas), if any.
    ///   - trusted: the proxies whose header is believed.
    static func clientAddress(peer: String?, forwardedFor: String?, trusted: [AddressRange]) -> String? {
        guard let peer, let forwardedFor, trusted.contains(where: { $0.contains(peer) }) else { return peer }
        let hops = forwardedFor.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        var chosen: String?
        for hop in hops.reversed() {
            guard let bytes = parse(hop) else { return peer }
            chosen =
                bytes.count == 4 && hop.contains(":") ? hop.split(separator: ":").last.map(String.init) : hop
            if !trusted.contains(where: { $0.contains(hop) }) { break }
        }
        return chosen ?? peer
    }
}

extension ErrorCode where Domain == ServerError {
    /// An address or CIDR block (a trusted proxy) could not be read.
    public static var invalidAddress: Self { Self("invalid_address") }
}
