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

    /// The page a controller is, or `nil` when it does not count: ignored, a system container,
    /// not named in configured mode, or a child controller the plan does not name.
    public func page(for description: PageDescription) -> PageViewTracker.Page? {
        guard !description.ignoresTracking, let name = pageName(ofControllerType: description.controllerType)
        else {
            return nil
        }
        let rule = plan.pages[description.controllerType]
        if let parent = description.parentType, !Self.isSystemContainer(parent), rule == nil {
            return nil
        }
        return PageViewTracker.Page(
            instanceID: description.instanceID, name: name, screenClass: description.controllerType,
            title: description.title, properties: rule?.properties ?? [:])
    }
}
