import FootprintServer
import FootprintWire

extension FuzzEntry {
    /// Runs `bytes` as a `POST /v1/snapshots` body, as the upload does after the write key and
    /// before the store: inflated when it starts with the gzip magic bytes, parsed, its connect
    /// token read from the body, validated by the wire type against the upload's limits, and
    /// turned into the record the store keeps.
    ///
    /// Checks: the kept document is JSON again, without the token or the image's bytes; it reads
    /// back the snapshot's elements' exact and similar paths in order (what per-element figures
    /// read); the element count and the image are within their limits.
    /// - Returns: `201` when the snapshot would be stored, else the status its refusal answers.
    public static func snapshot(_ bytes: [UInt8]) -> Int {
        let isGzip = bytes.count >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b
        let request = ServerRequest(
            method: "POST", path: SnapshotUploadAPI.path,
            headers: isGzip ? ["Content-Encoding": "gzip"] : [:],
            body: bytes, receivedAt: receivedAt)
        let configuration = SnapshotUploadAPI.Configuration()
        let snapshot: ScreenSnapshot
        do {
            var root = try SnapshotUploadAPI.document(request, configuration: configuration)
            root["connect_token"] = .string(try SnapshotUploadAPI.token(header: nil, body: root))
            snapshot = try SnapshotUploadAPI.snapshot(root, configuration: configuration)
        } catch let refusal as Refusal {
            return refusal.response.status
        } catch {
            return 500
        }
        let record = SnapshotUploadAPI.record(
            snapshot, project: Project(id: 1, name: "fuzz", writeKey: "fp_fuzz", createdAt: receivedAt),
            session: ConnectSession(
                id: 1, projectId: 1, hint: "fpc_fuzz", createdAt: receivedAt, expiresAt: receivedAt),
            receivedAt: receivedAt)
        let document = try? JSONParser(maximumDepth: 8).parse(Array(record.document.utf8))
        precondition(document?.objectValue != nil, "a kept document that is not a JSON object")
        precondition(document?["connect_token"] == nil, "a kept document with its connect token")
        precondition(document?["image"]?["data"] == nil, "a kept document with the image's bytes")
        let paths = ElementFigures.paths(ofDocument: record.document)
        precondition(
            paths.map(\.index) == Array(snapshot.elements.indices)
                && paths.map(\.path) == snapshot.elements.map(\.path)
                && paths.map(\.similarPath) == snapshot.elements.map(\.similarPath),
            "a kept document whose elements do not read back")
        precondition(
            record.elementCount == snapshot.elements.count
                && record.elementCount <= configuration.snapshotLimits.maximumElements,
            "an element count outside its limit")
        precondition(
            (record.image?.data.count ?? 0) <= configuration.maximumImageBytes, "an image over its limit")
        return 201
    }
}
