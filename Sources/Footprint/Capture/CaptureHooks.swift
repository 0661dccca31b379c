/// What the UI adapter must hook under a plan: which controller types report page views, and
/// which (type, method) pairs raise purpose-method events.
public struct CaptureHooks: Sendable, Hashable {
    /// One purpose method to hook.
    public struct Method: Sendable, Hashable {
        /// The type name whose method is hooked (report calls with this name).
        public var target: String
        /// The method (Objective-C selector) name.
        public var method: String

        /// Creates a method hook.
        public init(target: String, method: String) {
            self.target = target
            self.method = method
        }
    }

    /// The controller types whose appear/disappear to hook; `nil` means every controller
    /// (``TrackingPlan/PageMode/all`` mode).
    public var pageTypes: Set<String>?
    /// The purpose methods to hook, in plan order, without repeats.
    public var methods: [Method]

    /// The hooks a plan needs.
    public init(plan: TrackingPlan) {
        pageTypes = plan.pageMode == .configured ? Set(plan.pages.keys) : nil
        var methods: [Method] = []
        var seen: Set<Method> = []
        for event in plan.events {
            for case .method(let target, let method) in event.triggers {
                let hook = Method(target: target, method: method)
                if seen.insert(hook).inserted { methods.append(hook) }
            }
        }
        self.methods = methods
    }
}
