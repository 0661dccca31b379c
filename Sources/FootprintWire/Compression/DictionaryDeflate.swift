import CZlib

/// Raw deflate (RFC 1951: no header, no checksum) against a preset dictionary, for short
/// records that share most of their text with each other (stored event messages): the
/// dictionary holds what they have in common, so even a record of a few hundred bytes
/// compresses to a third or less.
///
/// The dictionary is part of the format: bytes compressed with one dictionary inflate only
/// with the same one.
public struct DictionaryDeflate: Sendable {
    /// The preset dictionary; the most common strings belong at its end (closest to the data).
    public let dictionary: [UInt8]
    /// zlib level, 1 (fastest) to 9 (smallest). Default 6.
    public var level: Int32 = 6
    /// log2 of the compression window, 9 to 15 (the dictionary and any earlier bytes of the
    /// record farther back than that are not matched). Default 12 (4 KiB).
    public var windowBits: Int32 = 12

    /// A codec over `dictionary` (its last 2^``windowBits`` bytes are used).
    public init(dictionary: [UInt8]) {
        self.dictionary = dictionary
    }

    /// `data` compressed, or `nil` when zlib fails (out of memory).
    public func compress(_ data: [UInt8]) -> [UInt8]? {
        var stream = z_stream()
        guard czlib_deflate_init_raw(&stream, level, windowBits, 6) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        guard setDictionary(&stream, deflateSetDictionary) else { return nil }
        return ZlibStream.finish(&stream, data)
    }

    /// Inflates bytes made by ``compress(_:)`` with the same dictionary, refusing to produce
    /// more than `limit` bytes or more than `maximumRatio` times the input, and refusing a
    /// truncated stream or bytes after its end.
    /// - Parameters:
    ///   - limit: the most bytes the result may hold.
    ///   - maximumRatio: the largest inflated/compressed ratio accepted; default 1,000.
    public func decompress(_ data: [UInt8], limit: Int, maximumRatio: Int = 1000) throws(GzipError) -> [UInt8]
    {
        var stream = z_stream()
        guard czlib_inflate_init_raw(&stream) == Z_OK else {
            throw GzipError(code: .corrupt, message: "inflate could not start")
        }
        defer { inflateEnd(&stream) }
        guard setDictionary(&stream, inflateSetDictionary) else {
            throw GzipError(code: .corrupt, message: "the dictionary could not be set")
        }
        return try ZlibStream.inflate(&stream, data, limit: limit, maximumRatio: maximumRatio)
    }

    private func setDictionary(
        _ stream: inout z_stream, _ set: (z_streamp?, UnsafePointer<Bytef>?, uInt) -> Int32
    ) -> Bool {
        guard !dictionary.isEmpty else { return true }
        return dictionary.withUnsafeBufferPointer { set(&stream, $0.baseAddress, uInt($0.count)) } == Z_OK
    }
}
