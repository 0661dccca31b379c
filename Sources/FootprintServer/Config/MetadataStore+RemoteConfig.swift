import FootprintWire

extension MetadataStore {
    /// Validates a remote config document with ``RemoteConfigValidator`` and stores it as the
    /// project's newest version.
    /// - Parameters:
    ///   - bytes: the document as UTF-8 JSON.
    ///   - projectId: the project it is for.
    ///   - now: the publication time.
    /// - Returns: the stored version.
    @discardableResult
    public func publishConfig(document bytes: [UInt8], projectId: Int64, at now: Timestamp)
        throws(ServerError)
        -> RemoteConfigVersion
    {
        let (_, document) = try RemoteConfigValidator.validate(bytes)
        return try storeConfig(projectId: projectId, document: document, at: now)
    }
}
