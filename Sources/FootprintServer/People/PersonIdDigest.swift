import CCrypto

/// What the store keeps of a deleted person's ids: SHA-256 (OpenSSL's libcrypto) of the
/// database's random salt followed by the id, never the id itself.
///
/// The salt (32 bytes of SQLite's `randomblob`, a ChaCha20 generator seeded by the operating
/// system, made when the database is migrated; table `people_salt`) makes the
/// digests of one database useless against another's and against precomputed tables; whoever
/// holds the file holds the salt too, so it hides ids from a reader of the deletion log, not
/// from someone who can guess an id and test it.
struct PersonIdDigest: Sendable, Hashable {
    /// The 32 bytes of the digest.
    let bytes: [UInt8]

    /// The digest of `id` under `salt`.
    init(of id: String, salt: [UInt8]) {
        let input = salt + Array(id.utf8)
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let succeeded = input.withUnsafeBytes { bytes in
            EVP_Digest(bytes.baseAddress, bytes.count, &digest, &length, EVP_sha256(), nil)
        }
        // EVP_Digest fails only when libcrypto cannot allocate; no other hash may stand in.
        precondition(succeeded == 1 && length == 32, "libcrypto could not compute SHA-256")
        bytes = Array(digest.prefix(Int(length)))
    }

    /// A digest read back from the database.
    init(stored: [UInt8]) {
        bytes = stored
    }
}
