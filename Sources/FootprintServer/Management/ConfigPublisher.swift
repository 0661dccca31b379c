import FootprintWire

/// Changes a project's remote config (the SDK's tracking plan): publish a document, publish
/// event definitions and page names into the latest plan, roll back. Every change is validated
/// as a ``TrackingPlan`` and stored as a new revision.
public struct ConfigPublisher: Sendable {
    /// The store holding the revisions.
    public let store: any MetadataStore

    /// Creates a publisher over `store`.
    public init(store: any MetadataStore) {
        self.store = store
    }

    /// The latest published plan, or an empty plan when none was published.
    public func latestPlan(projectId: Int64) throws(ServerError) -> TrackingPlan {
        guard let latest = try store.latestConfig(projectId: projectId) else { return TrackingPlan() }
        return try RemoteConfigValidator.validate(Array(latest.document.utf8)).plan
    }

    /// Validates and publishes `document` as a new revision.
    @discardableResult
    public func publish(document: String, projectId: Int64, at now: Timestamp) throws(ServerError)
        -> RemoteConfigVersion
    {
        try store.publishConfig(document: Array(document.utf8), projectId: projectId, at: now)
    }

    /// Publishes the latest plan with every definition that has an element-path matcher as a
    /// plan event (replacing plan events with the same id), so `matched` upload mode keeps them.
    /// - Returns: the new revision, or `nil` when no definition has a path.
    @discardableResult
    public func publishDefinitions(projectId: Int64, at now: Timestamp) throws(ServerError)
        -> RemoteConfigVersion?
    {
        let events = try store.eventDefinitions(projectId: projectId).compactMap(\.planEvent)
        guard !events.isEmpty else { return nil }
        var plan = try latestPlan(projectId: projectId)
        let ids = Set(events.map(\.id))
        plan.events = plan.events.filter { !ids.contains($0.id) } + events
        return try publish(document: JSONWriter.string(plan.jsonValue), projectId: projectId, at: now)
    }

    /// Publishes the latest plan with a page name for a controller type.
    @discardableResult
    public func publishPageName(controller: String, name: String, projectId: Int64, at now: Timestamp)
        throws(ServerError) -> RemoteConfigVersion
    {
        let controller = controller.trimmingSpaces
        let name = name.trimmingSpaces
        guard !controller.isEmpty, !name.isEmpty else {
            throw ServerError(code: .invalidConfig, message: "give a controller type and a page name")
        }
        var plan = try latestPlan(projectId: projectId)
        plan.pages[controller] = PageRule(name: name, properties: plan.pages[controller]?.properties ?? [:])
        return try publish(document: JSONWriter.string(plan.jsonValue), projectId: projectId, at: now)
    }

    /// Publishes revision `version`'s document again as the newest revision.
    @discardableResult
    public func rollBack(to version: Int64, projectId: Int64, at now: Timestamp) throws(ServerError)
        -> RemoteConfigVersion
    {
        guard
            let earlier = try store.configVersions(projectId: projectId).first(where: {
                $0.version == version
            })
        else {
            throw ServerError(code: .invalidConfig, message: "the project has no config version \(version)")
        }
        return try publish(document: earlier.document, projectId: projectId, at: now)
    }
}
