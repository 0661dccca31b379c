#if canImport(UIKit) && !os(watchOS)
    import UIKit

    /// Control actions: every selector-based action goes through
    /// `UIApplication.sendAction(_:to:from:for:)` (one call per target-action pair), and every
    /// `UIAction` registered on a control through `UIControl.sendAction(_:)`; both are hooked.
    ///
    /// Value controls (switch, segmented control, stepper, slider, date picker, page control)
    /// report on value change, a continuous slider only when the finger lifts; other controls on
    /// touch-up (or their primary action); text fields never for typing. Bar button items report
    /// with the chain of their target. Targets that belong to SwiftUI's own bridging are skipped.
    @MainActor
    enum ControlActionHooks {
        /// Set while a `UIAction` is dispatched, so that anything it sends through the
        /// application is not reported a second time.
        private static var isDispatchingUIAction = false

        private typealias SendAction =
            @convention(c) (
                UIApplication, Selector, Selector, AnyObject?, AnyObject?, UIEvent?
            ) -> ObjCBool
        private typealias SendActionHook =
            @MainActor @convention(block) (
                UIApplication, Selector, AnyObject?, AnyObject?, UIEvent?
            ) -> ObjCBool

        static func install() {
            let sendAction = #selector(UIApplication.sendAction(_:to:from:for:))
            _ = MethodHooks.hook(sendAction, of: UIApplication.self) { original in
                let block: SendActionHook = { application, action, target, sender, event in
                    if !isDispatchingUIAction {
                        record(action: action, target: target, sender: sender, event: event)
                    }
                    return unsafeBitCast(original.implementation, to: SendAction.self)(
                        application, original.selector, action, target, sender, event)
                }
                return block
            }

            typealias SendUIAction = @convention(c) (UIControl, Selector, UIAction) -> Void
            _ = MethodHooks.hook(NSSelectorFromString("sendAction:"), of: UIControl.self) { original in
                let block: @MainActor @convention(block) (UIControl, UIAction) -> Void = { control, action in
                    record(uiAction: action, from: control)
                    let wasDispatching = isDispatchingUIAction
                    isDispatchingUIAction = true
                    defer { isDispatchingUIAction = wasDispatching }
                    unsafeBitCast(original.implementation, to: SendUIAction.self)(
                        control, original.selector, action)
                }
                return block
            }
        }

        /// Reports one target-action pair UIKit dispatches, when it is one the user means.
        static func record(action: Selector, target: AnyObject?, sender: AnyObject?, event: UIEvent?) {
            guard let adapter = UIKitCapture.installed, adapter.configuration.hooksControls else { return }
            if let target, ResponderChainDescriber.typeName(of: target).contains("SwiftUI") { return }
            let selector = NSStringFromSelector(action)
            switch sender {
            case let control as UIControl:
                guard reports(control, selector: selector, target: target, event: event) else { return }
                adapter.capture.controlActed(
                    ResponderChainDescriber.element(for: control, target: target),
                    action: ActionDescription(
                        selector: selector, senderType: ResponderChainDescriber.typeName(of: control)))
            case let item as UIBarButtonItem:
                let itemType = ResponderChainDescriber.typeName(of: item)
                let targetChain =
                    (target as? UIResponder).map { ResponderChainDescriber.chain(from: $0) } ?? []
                let element = ElementDescription(
                    chain: [ResponderDescription(itemType, role: .other, properties: [:])] + targetChain,
                    kind: .button,
                    attributes: ElementAttributes(title: item.title ?? item.accessibilityLabel),
                    keyPathSource: KeyValueCodingSource(
                        roots: ResponderChainDescriber.keyPathRoots(
                            view: nil,
                            controller: (target as? UIResponder).flatMap {
                                ResponderChainDescriber.nearestController(of: $0)
                            },
                            target: target)))
                adapter.capture.controlActed(
                    element, action: ActionDescription(selector: selector, senderType: itemType))
            default:
                return
            }
        }

        private static func record(uiAction action: UIAction, from control: UIControl) {
            guard let adapter = UIKitCapture.installed, adapter.configuration.hooksControls else { return }
            if control is UITextField
                || ResponderChainDescriber.isDraggingContinuousSlider(control, event: nil)
            {
                return
            }
            adapter.capture.controlActed(
                ResponderChainDescriber.element(for: control),
                action: ActionDescription(
                    selector: "UIAction", senderType: ResponderChainDescriber.typeName(of: control)))
        }

        /// Whether a selector-based action of `control` is one the user means: a value change of a
        /// value control, a touch-up or primary action of the others.
        private static func reports(
            _ control: UIControl, selector: String, target: AnyObject?, event: UIEvent?
        ) -> Bool {
            let meaningfulEvents: [UIControl.Event]
            if ResponderChainDescriber.isValueControl(control) {
                // A dragged slider reports its final value, when the finger lifts.
                if ResponderChainDescriber.isDraggingContinuousSlider(control, event: event) { return false }
                meaningfulEvents = [.valueChanged, .primaryActionTriggered]
            } else if control is UITextField {
                meaningfulEvents = [.primaryActionTriggered, .editingDidEndOnExit]
            } else {
                meaningfulEvents = [.touchUpInside, .primaryActionTriggered]
            }
            // A nil target travels the responder chain; its registration cannot be looked up.
            guard let target else { return true }
            return meaningfulEvents.contains { controlEvent in
                control.actions(forTarget: target, forControlEvent: controlEvent)?.contains(selector) == true
            }
        }
    }
#endif
