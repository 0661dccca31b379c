/// Which table and collection views automatic capture touches: the app's lists, never the
/// system's (picker wheels, keyboard candidates, menus, SwiftUI's lists, lists in keyboard
/// windows).
///
/// - A list's delegate is wrapped (for cell selection and scrolling) only when the list is a
///   plain `UITableView` / `UICollectionView` or a subclass of the app's, and its delegate is
///   an object of the app's (or a plain `UITableViewController` / `UICollectionViewController`).
///   UIKit's private list classes and lists whose delegate is a system object are left alone.
/// - A list inside system input UI (keyboard windows, pickers) is never measured.
/// - Exposure is measured for lists the app marked (a list id or item identities), or for every
///   list of the app when the plan says so (``TrackingPlan/exposureLists``);
///   ``AutoCapture/measuresExposure(ofList:isMarked:)`` applies the plan and the ignore rules.
public enum ListRule {
    /// The public list classes apps use directly.
    public static let publicListTypes: Set<String> = ["UITableView", "UICollectionView"]
    /// The public controllers apps use directly as a list's delegate.
    public static let publicDelegateTypes: Set<String> = [
        "UITableViewController", "UICollectionViewController",
    ]
    /// Windows and views of system input (the keyboard, its candidates, pickers, menus): lists
    /// inside them are the system's.
    public static let systemInputTypes: Set<String> = [
        "UIRemoteKeyboardWindow", "UITextEffectsWindow", "UIInputSetHostView", "UIInputSetContainerView",
        "UIPickerView", "UIDatePicker", "UIPickerTableView", "UIPickerColumnView",
        "UIContextMenuContainerView", "UICalendarView",
    ]

    /// Whether the list's delegate gets Footprint's proxy.
    /// - Parameters:
    ///   - list: the list's class.
    ///   - delegate: the delegate's class.
    ///   - appCode: what is the app's code.
    public static func wrapsDelegate(list: ClassOrigin, delegate: ClassOrigin, appCode: AppCode) -> Bool {
        guard isAppList(list, appCode: appCode) else { return false }
        return publicDelegateTypes.contains(delegate.runtimeName) || appCode.owns(delegate)
    }

    /// Whether a list of class `list` can be the app's: a plain `UITableView` /
    /// `UICollectionView` or a subclass of the app's (not UIKit's private list classes).
    public static func isAppList(_ list: ClassOrigin, appCode: AppCode) -> Bool {
        publicListTypes.contains(list.runtimeName) || appCode.owns(list)
    }

    /// Whether a list whose responder chain is `chain` (the list first) sits in system UI.
    public static func isInSystemUI(_ chain: [ResponderDescription]) -> Bool {
        chain.contains { responder in
            let type = responder.typeName
            return systemInputTypes.contains(type) || type.hasPrefix("_UIKeyboard")
                || type.hasPrefix("UIKeyboard") || type.hasPrefix("_UIContextMenu") || type.hasPrefix("TUI")
        }
    }
}
