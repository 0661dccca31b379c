/// The body of `POST /v1/batch`, built from stored event JSON without decoding it:
/// `{"batch":[…],"context":{"footprint":{"evicted":N}},"sentAt":"…"}`.
///
/// `sentAt` is stamped on the batch and on each event at every attempt; `context.footprint` is
/// present only when events were evicted since the last delivered report.
enum BatchBody {
    /// Encodes `batch` as sent at `sentAt`.
    static func encode(_ batch: StoredBatch, sentAt: Timestamp) -> [UInt8] {
        let stamp = Array("\"sentAt\":\"\(sentAt.iso8601)\"".utf8)
        var output: [UInt8] = []
        output.reserveCapacity(batch.bodies.reduce(64) { $0 + $1.count + stamp.count + 2 })
        output.append(contentsOf: "{\"batch\":[".utf8)
        for (index, body) in batch.bodies.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            // Stored events are JSON objects without `sentAt`: add it as the first member.
            output.append(UInt8(ascii: "{"))
            output.append(contentsOf: stamp)
            if body.count > 2 { output.append(UInt8(ascii: ",")) }
            output.append(contentsOf: body.dropFirst())
        }
        output.append(UInt8(ascii: "]"))
        if batch.unreportedEvictions > 0 {
            output.append(
                contentsOf: ",\"context\":{\"footprint\":{\"evicted\":\(batch.unreportedEvictions)}}".utf8)
        }
        output.append(UInt8(ascii: ","))
        output.append(contentsOf: stamp)
        output.append(UInt8(ascii: "}"))
        return output
    }
}
