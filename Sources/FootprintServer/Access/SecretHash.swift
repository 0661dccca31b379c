import CCrypto

/// The SHA-256 digest of a secret (a token or a dashboard session id), computed with OpenSSL's
/// libcrypto: what the database keeps instead of the secret itself.
///
/// Every secret the server makes carries 128 random bits, so an unsalted digest cannot be
/// reversed by guessing; a stolen database file therefore opens nothing.
public struct SecretHash: Sendable, Hashable {
    /// The 32 bytes of the digest.
    public let bytes: [UInt8]

    /// The digest of `secret`'s UTF-8 bytes.
    public init(of secret: String) {
        self.init(of: Array(secret.utf8))
    }

    /// The digest of `secret`.
    public init(of secret: [UInt8]) {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let succeeded = secret.withUnsafeBytes { input in
            EVP_Digest(input.baseAddress, input.count, &digest, &length, EVP_sha256(), nil)
        }
        // EVP_Digest fails only when libcrypto cannot allocate; no hash may stand in for it.
        precondition(succeeded == 1 && length == 32, "libcrypto could not compute SHA-256")
        bytes = Array(digest.prefix(Int(length)))
    }

    /// A digest read back from the database (32 bytes; anything else matches no secret).
    public init(stored: [UInt8]) {
        bytes = stored
    }

    /// The digest as 64 lowercase hexadecimal digits.
    public var hex: String {
        bytes.map { byte in
            let text = String(byte, radix: 16)
            return byte < 16 ? "0" + text : text
        }.joined()
    }

    /// Whether two digests are equal, in time that does not depend on where they differ
    /// (`CRYPTO_memcmp`).
    public static func constantTimeEquals(_ left: SecretHash, _ right: SecretHash) -> Bool {
        guard left.bytes.count == right.bytes.count, !left.bytes.isEmpty else { return false }
        return left.bytes.withUnsafeBytes { leftBytes in
            right.bytes.withUnsafeBytes { rightBytes in
                CRYPTO_memcmp(leftBytes.baseAddress, rightBytes.baseAddress, leftBytes.count) == 0
            }
        }
    }
}
