/// Which purpose methods a plan may have hooked. A remote plan reaches every installation at
/// once, so a method whose hook could crash or slow every user is refused, whatever the plan
/// says: memory management and object lifecycle (`dealloc`, `.cxx_destruct`, `retain`,
/// `release`, `autorelease`...), the runtime's own protocol (forwarding, `respondsToSelector:`,
/// key-value coding and observing), private selectors (`_`-prefixed), and classes outside the
/// app's own code unless the app lists them, and methods UIKit calls per frame, cell or layout
/// pass (``hotPathSelectors``).
public enum PurposeMethodRule {
    /// Why a purpose method is refused.
    public enum Refusal: Sendable, Hashable {
        /// Memory management, lifecycle or the runtime's own protocol.
        case runtimeMethod
        /// A private selector (`_`- or `.`-prefixed).
        case privateMethod
        /// A method UIKit calls per frame, per cell or per layout pass (`layoutSubviews`,
        /// `scrollViewDidScroll:`, `prepareForReuse`, `drawRect:`...): one plan edit would make
        /// every user emit an event per frame and push real events out of the queue.
        case hotPathMethod
        /// The class is not the app's (UIKit, another system framework) and the app does not
        /// list it.
        case outsideApp
    }

    /// Selectors never hooked.
    public static let runtimeSelectors: Set<String> = [
        "dealloc", ".cxx_destruct", ".cxx_construct", "retain", "release", "autorelease", "retainCount",
        "allowsWeakReference", "retainWeakReference", "load", "initialize", "init", "finalize",
        "forwardInvocation:", "forwardingTargetForSelector:", "methodSignatureForSelector:",
        "doesNotRecognizeSelector:", "respondsToSelector:", "conformsToProtocol:", "isKindOfClass:",
        "isMemberOfClass:", "class", "superclass", "self", "hash", "isEqual:", "description",
        "debugDescription", "copy", "mutableCopy", "copyWithZone:", "mutableCopyWithZone:", "zone",
        "valueForKey:", "valueForKeyPath:", "setValue:forKey:", "setValue:forKeyPath:",
        "setValue:forUndefinedKey:",
        "valueForUndefinedKey:", "willChangeValueForKey:", "didChangeValueForKey:",
        "addObserver:forKeyPath:options:context:", "removeObserver:forKeyPath:",
        "removeObserver:forKeyPath:context:", "observeValueForKeyPath:ofObject:change:context:",
    ]

    /// Selectors UIKit calls per frame, per cell or per layout pass: never hooked.
    public static let hotPathSelectors: Set<String> = [
        "layoutSubviews", "layoutIfNeeded", "setNeedsLayout", "layoutSublayersOfLayer:",
        "viewWillLayoutSubviews", "viewDidLayoutSubviews", "updateConstraints", "updateViewConstraints",
        "drawRect:", "drawLayer:inContext:", "displayLayer:", "draw:", "setNeedsDisplay",
        "prepareForReuse", "prepareForDisplay", "applyLayoutAttributes:",
        "preferredLayoutAttributesFittingAttributes:",
        "sizeThatFits:", "intrinsicContentSize", "systemLayoutSizeFittingSize:", "traitCollectionDidChange:",
        "scrollViewDidScroll:", "scrollViewDidZoom:", "tableView:cellForRowAtIndexPath:",
        "tableView:heightForRowAtIndexPath:", "tableView:willDisplayCell:forRowAtIndexPath:",
        "tableView:didEndDisplayingCell:forRowAtIndexPath:", "collectionView:cellForItemAtIndexPath:",
        "collectionView:willDisplayCell:forItemAtIndexPath:",
        "collectionView:didEndDisplayingCell:forItemAtIndexPath:",
        "collectionView:layout:sizeForItemAtIndexPath:", "observeValueForKeyPath:ofObject:change:context:",
        "touchesMoved:withEvent:", "hitTest:withEvent:", "pointInside:withEvent:", "didMoveToWindow",
        "didMoveToSuperview", "willMoveToWindow:", "willMoveToSuperview:", "tick:", "step:",
        "displayLinkDidFire:", "update:",
    ]

    /// Why hooking `method` of the class `target` (named `typeName` in the plan) is refused, or
    /// `nil` when it may be hooked.
    /// - Parameters:
    ///   - method: the selector name.
    ///   - typeName: the type name the plan uses.
    ///   - target: the class it resolves to.
    ///   - appCode: what is the app's code.
    ///   - allowedTypes: type names outside the app's code that the app lets plans hook.
    public static func refusal(
        method: String, typeName: String, target: ClassOrigin, appCode: AppCode, allowedTypes: Set<String>
    ) -> Refusal? {
        if runtimeSelectors.contains(method) { return .runtimeMethod }
        if method.hasPrefix("_") || method.hasPrefix(".") { return .privateMethod }
        if hotPathSelectors.contains(method) { return .hotPathMethod }
        if appCode.owns(target) || allowedTypes.contains(typeName)
            || allowedTypes.contains(target.runtimeName)
        {
            return nil
        }
        return .outsideApp
    }
}
