import Foundation

/// The on-disk copy of the last good remote plan and its ETag, so that a launch without network
/// uses it, and the next request can be answered `304`.
///
/// One JSON file, `{"etag": "…", "plan": {…}}`, replaced atomically. A damaged file is reported
/// and never used.
public struct RemoteConfigCache: Sendable {
    /// The cache file.
    public let fileURL: URL

    /// A cached plan.
    public struct Entry: Sendable, Hashable {
        /// The plan.
        public var plan: TrackingPlan
        /// The ETag the server sent with it.
        public var etag: String?
    }

    /// Creates a cache in `fileURL` (its folder is created on the first save).
    public init(fileURL: URL) {
        self.fileURL = fileURL
    }

    /// The cached plan, or `nil` when none was saved.
    /// - Throws: ``PlanError`` when the file is damaged or holds an invalid plan.
    public func load() throws(PlanError) -> Entry? {
        guard FileManager.default.fileExists(atPath: fileURL.path) else { return nil }
        let data: Data
        do {
            data = try Data(contentsOf: fileURL)
        } catch {
            throw PlanError(code: .unreadable, keyPath: "", message: "cannot read the cached plan: \(error)")
        }
        let document: JSONValue
        do {
            document = try JSONParser().parse([UInt8](data))
        } catch {
            throw PlanError(code: .unreadable, keyPath: "", message: "the cached plan is damaged: \(error)")
        }
        guard let plan = document["plan"] else {
            throw PlanError(code: .unreadable, keyPath: "", message: "the cache file holds no plan")
        }
        return Entry(plan: try TrackingPlan(json: plan), etag: document["etag"]?.stringValue)
    }

    /// Saves a plan body exactly as the server sent it (already validated as a plan) and its
    /// ETag, replacing the file atomically.
    public func save(planBody: [UInt8], etag: String?) throws {
        var document: [UInt8] = Array("{\"etag\":".utf8)
        JSONWriter.write(etag.map(JSONValue.string) ?? .null, into: &document)
        document += Array(",\"plan\":".utf8)
        document += planBody
        document.append(UInt8(ascii: "}"))
        try FileManager.default.createDirectory(
            at: fileURL.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(document).write(to: fileURL, options: .atomic)
    }

    /// Deletes the cached plan, if any.
    public func clear() throws {
        guard FileManager.default.fileExists(atPath: fileURL.path) else { return }
        try FileManager.default.removeItem(at: fileURL)
    }
}
