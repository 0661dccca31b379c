/// Computes a view's index among its siblings of the same type, as written in element paths
/// (`UIButton[1]` is the second `UIButton` child of its superview).
///
/// Only views of exactly the same type name count, so adding a label next to a button does not
/// change the button's path; hidden views count too, so toggling visibility does not either.
public enum SiblingIndex {
    /// The index of the subview at `position` among the subviews of the same type.
    /// - Parameters:
    ///   - position: the view's offset in `siblingTypes`.
    ///   - siblingTypes: the type names of all the superview's subviews, in order.
    /// - Returns: `nil` when `position` is outside `siblingTypes`.
    public static func index(at position: Int, in siblingTypes: [String]) -> Int? {
        guard siblingTypes.indices.contains(position) else { return nil }
        let type = siblingTypes[position]
        var index = 0
        for offset in 0..<position where siblingTypes[offset] == type { index += 1 }
        return index
    }
}
