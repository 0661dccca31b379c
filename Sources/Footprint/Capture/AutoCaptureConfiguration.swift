/// How the app configures automatic capture (what the server's plan cannot change).
public struct AutoCaptureConfiguration: Sendable {
    /// Type names never captured: a view type (and everything inside such views), or a
    /// controller type (its page views and everything on it). Default: none.
    public var ignoredTypes: Set<String>
    /// The longest captured element text, in characters; longer text is cut. Default: 255.
    public var maximumTextLength: Int
    /// How many events each purpose method (class and selector) may raise; calls beyond are
    /// dropped, counted and reported through the plan's health. Default: 10 at once, then 1 a
    /// second.
    public var purposeMethodLimit: PurposeMethodLimit

    /// Creates a configuration.
    /// - Parameters:
    ///   - ignoredTypes: type names never captured. Default: none.
    ///   - maximumTextLength: the longest captured text. Default: 255.
    ///   - purposeMethodLimit: the events each purpose method may raise. Default: 10 at once,
    ///     then 1 a second.
    public init(
        ignoredTypes: Set<String> = [], maximumTextLength: Int = 255,
        purposeMethodLimit: PurposeMethodLimit = PurposeMethodLimit()
    ) {
        self.ignoredTypes = ignoredTypes
        self.maximumTextLength = maximumTextLength
        self.purposeMethodLimit = purposeMethodLimit
    }
}
