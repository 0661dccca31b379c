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
        bytes = SecretHash(of: salt + Array(id.utf8)).bytes
    }

    /// A digest read back from the database.
    init(stored: [UInt8]) {
        bytes = stored
    }
}
