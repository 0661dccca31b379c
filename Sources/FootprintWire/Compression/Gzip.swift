import CZlib

/// Why a gzip body could not be inflated.
public struct GzipError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public var code: Code
    /// Details for people.
    public var message: String

    /// The kinds of gzip failure.
    public typealias Code = ErrorCode<GzipError>

    /// Creates an error.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}

extension ErrorCode where Domain == GzipError {
    /// The data is not a valid gzip or zlib stream.
    public static var corrupt: Self { Self("corrupt") }
    /// The inflated data would exceed the limit the caller set.
    public static var tooLarge: Self { Self("tooLarge") }
    /// The ratio of inflated to compressed size is beyond what real payloads reach.
    public static var suspiciousRatio: Self { Self("suspiciousRatio") }
}

/// gzip compression for request bodies (RFC 1952), on top of zlib.
public enum Gzip {
    /// `data` compressed as one gzip member.
    /// - Parameter level: zlib level 1 (fastest) to 9 (smallest); default 6.
    public static func compress(_ data: [UInt8], level: Int32 = 6) -> [UInt8] {
        var stream = z_stream()
        guard czlib_deflate_init_gzip(&stream, level) == Z_OK else { return [] }
        defer { deflateEnd(&stream) }
        return ZlibStream.finish(&stream, data) ?? []
    }

    /// Inflates a gzip (or zlib) stream, refusing to produce more than `limit` bytes or to
    /// expand beyond `maximumRatio` times the input (a decompression bomb).
    /// - Parameters:
    ///   - limit: the most bytes the result may hold.
    ///   - maximumRatio: the largest inflated/compressed ratio accepted; default 1,000
    ///     (JSON compresses 5–20×; zeros compress ~1,000×).
    public static func decompress(_ data: [UInt8], limit: Int, maximumRatio: Int = 1000) throws(GzipError)
        -> [UInt8]
    {
        var stream = z_stream()
        guard czlib_inflate_init_gzip(&stream) == Z_OK else {
            throw GzipError(code: .corrupt, message: "inflate could not start")
        }
        defer { inflateEnd(&stream) }
        return try ZlibStream.inflate(&stream, data, limit: limit, maximumRatio: maximumRatio)
    }
}

/// The deflate and inflate loops the formats share, over a stream the caller started.
enum ZlibStream {
    /// Deflates all of `data` in one call (`Z_FINISH`); `nil` when zlib fails.
    static func finish(_ stream: inout z_stream, _ data: [UInt8]) -> [UInt8]? {
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(data.count))) + 32)
        var input = data
        let produced: Int = input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                stream.next_in = inBuffer.baseAddress
                stream.avail_in = UInt32(inBuffer.count)
                stream.next_out = outBuffer.baseAddress
                stream.avail_out = UInt32(outBuffer.count)
                let status = deflate(&stream, Z_FINISH)
                return status == Z_STREAM_END ? outBuffer.count - Int(stream.avail_out) : -1
            }
        }
        guard produced >= 0 else { return nil }
        output.removeSubrange(produced...)
        return output
    }

    /// Inflates the whole of `data`, refusing more than `limit` bytes, more than `maximumRatio`
    /// times the input, a truncated stream and bytes after its end.
    static func inflate(_ stream: inout z_stream, _ data: [UInt8], limit: Int, maximumRatio: Int)
        throws(GzipError)
        -> [UInt8]
    {
        let ratioLimit = max(data.count, 64) * maximumRatio
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: min(64 * 1024, max(limit, 0) + 1))
        var input = data
        var failure: GzipError?
        input.withUnsafeMutableBufferPointer { inBuffer in
            stream.next_in = inBuffer.baseAddress
            stream.avail_in = UInt32(inBuffer.count)
            while true {
                let (status, produced) = chunk.withUnsafeMutableBufferPointer { outBuffer in
                    stream.next_out = outBuffer.baseAddress
                    stream.avail_out = UInt32(outBuffer.count)
                    let status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    return (status, outBuffer.count - Int(stream.avail_out))
                }
                output.append(contentsOf: chunk[0..<produced])
                if output.count > limit {
                    failure = GzipError(code: .tooLarge, message: "inflates to more than \(limit) bytes")
                    return
                }
                if output.count > ratioLimit {
                    failure = GzipError(
                        code: .suspiciousRatio,
                        message: "inflates more than \(maximumRatio)× (\(data.count) compressed bytes)")
                    return
                }
                if status == Z_STREAM_END {
                    if stream.avail_in != 0 {
                        failure = GzipError(code: .corrupt, message: "data after the end of the stream")
                    }
                    return
                }
                if status != Z_OK || (produced == 0 && stream.avail_in == 0) {
                    failure = GzipError(
                        code: .corrupt, message: "not a complete stream (zlib status \(status))")
                    return
                }
            }
        }
        if let failure { throw failure }
        return output
    }
}
