import Foundation

/// The direction a list scrolls in.
public enum ListAxis: String, Sendable, Hashable {
    /// A list that scrolls up and down (a table, a vertical grid or feed).
    case vertical
    /// A list that scrolls left and right (a carousel, a horizontal grid).
    case horizontal
}

extension ListAxis {
    /// The coordinate of `point` along this axis.
    @inline(__always)
    package func coordinate(of point: CGPoint) -> CGFloat {
        self == .vertical ? point.y : point.x
    }

    /// The start (`minY` or `minX`) of `rect` along this axis.
    @inline(__always)
    func start(of rect: CGRect) -> CGFloat {
        self == .vertical ? rect.minY : rect.minX
    }

    /// The end (`maxY` or `maxX`) of `rect` along this axis.
    @inline(__always)
    package func end(of rect: CGRect) -> CGFloat {
        self == .vertical ? rect.maxY : rect.maxX
    }

    /// The length (height or width) of `size` along this axis.
    @inline(__always)
    package func length(of size: CGSize) -> CGFloat {
        self == .vertical ? size.height : size.width
    }

    /// A point at `coordinate` along this axis and `other` across it.
    @inline(__always)
    package func point(_ coordinate: CGFloat, across other: CGFloat) -> CGPoint {
        self == .vertical ? CGPoint(x: other, y: coordinate) : CGPoint(x: coordinate, y: other)
    }
}
