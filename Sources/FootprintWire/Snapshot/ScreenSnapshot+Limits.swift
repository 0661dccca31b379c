extension ScreenSnapshot {
    /// The bounds ``ScreenSnapshot/init(jsonBytes:limits:)`` enforces: what a device may send and
    /// what the SDK keeps its snapshots within.
    public struct Limits: Sendable, Hashable {
        /// The largest JSON document, in bytes. Default 8 MiB (2,000 elements with the longest
        /// paths and an image at its cap fit).
        public var maximumDocumentBytes: Int = 8 * 1024 * 1024
        /// The most elements. Default 2,000.
        public var maximumElements: Int = 2_000
        /// The longest element text, in UTF-8 bytes. Default 200.
        public var maximumTextBytes: Int = 200
        /// The longest path or similar path, in UTF-8 bytes. Default 1,024.
        public var maximumPathBytes: Int = 1_024
        /// The longest id, token, name, version or plan entry, in UTF-8 bytes. Default 256.
        public var maximumFieldBytes: Int = 256
        /// The longest element kind, in UTF-8 bytes. Default 32.
        public var maximumKindBytes: Int = 32
        /// The largest image after Base64 decoding, in bytes. Default 1 MiB.
        public var maximumImageBytes: Int = 1024 * 1024
        /// The farthest a frame's edge or size may be from 0, in points. Default 100,000.
        public var maximumCoordinate: Double = 100_000
        /// The screen's scale. Default 1…4.
        public var scaleRange: ClosedRange<Double> = 1...4
        /// The screen's largest width or height, in points (the smallest is 1). Default 10,000.
        public var maximumScreenPoints: Double = 10_000
        /// The image's largest width or height, in pixels (the smallest is 1). Default 10,000.
        public var maximumImagePixels: Int = 10_000

        /// Creates the default limits.
        public init() {}
    }
}
