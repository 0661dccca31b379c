/// Decides which controllers count as pages and what they are called, under a plan's page mode.
public struct PagePolicy: Sendable {
    /// The plan's pages, mode and ignore list.
    public var plan: TrackingPlan
    /// Type names the app never wants captured.
    public var ignoredTypes: Set<String>

    /// Controllers that only contain or decorate other pages, or belong to the system: never
    /// pages in ``TrackingPlan/PageMode/all`` mode (types starting with `_` are private to the
    /// system and never pages either).
    public static let systemContainerTypes: Set<String> = [
        "UINavigationController", "UITabBarController", "UIPageViewController", "UISplitViewController",
        "UIInputViewController", "UIAlertController", "UIActivityViewController", "UISearchController",
        "UIReferenceLibraryViewController", "UIDocumentMenuViewController", "UIDocumentPickerViewController",
        "UIImagePickerController", "UIVideoEditorController", "UIPrinterPickerController",
        "UIActivityContentViewController", "UIApplicationRotationFollowingController",
        "UIApplicationRotationFollowingControllerNoTouches", "UICompatibilityInputViewController",
        "UIInputWindowController", "UIEditingOverlayViewController", "UISystemKeyboardDockController",
        "UISystemInputAssistantViewController", "UIPredictionViewController",
        "UIKeyboardCandidateGridCollectionViewController",
        "UICandidateViewController", "UIMultiColumnViewController", "UIKeyboardHiddenViewController",
        "UIHostingController", "UIContextMenuActionsOnlyViewController",
        "UIAlertControllerTextFieldViewController",
        "UIStatusBarViewController", "UISnapshotModalViewController", "SFSafariViewController",
        "SFAirDropActivityViewController", "PUPhotoPickerHostViewController", "MFMailComposeViewController",
        "MFMessageComposeViewController", "CNContactPickerViewController", "PHPickerViewController",
        "AVPlayerViewController", "SKStoreProductViewController", "GKGameCenterViewController",
    ]

    /// Creates a policy.
    public init(plan: TrackingPlan, ignoredTypes: Set<String> = []) {
        self.plan = plan
        self.ignoredTypes = ignoredTypes
    }

    /// Whether `type` is a system container or private system controller.
    public static func isSystemContainer(_ type: String) -> Bool {
        type.hasPrefix("_") || systemContainerTypes.contains(type)
    }

    /// The page name of a controller type, or `nil` when it is not a page: in configured mode
    /// the plan's name; in all mode the plan's name, else the type name, unless the type is a
    /// system container or ignored.
    public func pageName(ofControllerType type: String) -> String? {
        if ignoredTypes.contains(type) { return nil }
        if let rule = plan.pages[type] { return rule.name }
        guard plan.pageMode == .all, !plan.ignoredPages.contains(type), !Self.isSystemContainer(type) else {
            return nil
        }
        return type
    }

    /// The page name of a controller with parent `parentType` (`nil` for a root or presented
    /// controller), or `nil` when it is not a page: as ``pageName(ofControllerType:)``, and a
    /// child controller (whose parent is not a system container) only when the plan names it.
    /// The one rule for page views, element events and list exposure.
    public func pageName(ofControllerType type: String, parentType: String?) -> String? {
        guard let name = pageName(ofControllerType: type) else { return nil }
        if let parentType, !Self.isSystemContainer(parentType), plan.pages[type] == nil { return nil }
        return name
    }

    /// The page something on screen belongs to: the nearest controller on its responder chain
    /// (the element or list first, up through its controllers and their ancestors) that is a
    /// page, so a tap or a list inside a child controller that is no page belongs to the page
    /// that contains it. `nil` when no controller on the chain is a page.
    public func pageName(ofChain chain: [ResponderDescription]) -> String? {
        for responder in chain where responder.role == .viewController {
            if let name = pageName(ofControllerType: responder.typeName, parentType: responder.parentType) {
                return name
            }
        }
        return nil
    }

    /// The page a controller is, or `nil` when it does not count: ignored, a system container,
    /// not named in configured mode, or a child controller the plan does not name.
    public func page(for description: PageDescription) -> PageViewTracker.Page? {
        guard !description.ignoresTracking,
            let name = pageName(
                ofControllerType: description.controllerType, parentType: description.parentType)
        else {
            return nil
        }
        return PageViewTracker.Page(
            instanceID: description.instanceID, name: name, screenClass: description.controllerType,
            title: description.title, properties: plan.pages[description.controllerType]?.properties ?? [:])
    }
}
