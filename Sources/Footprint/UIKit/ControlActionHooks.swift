#if canImport(UIKit) && !os(watchOS)
    import UIKit

    /// Control actions: every selector-based action goes through
    /// `UIApplication.sendAction(_:to:from:for:)` (one call per target-action pair), and every
    /// `UIAction` registered on a control through `UIControl.sendAction(_:)`; both are hooked.
    ///
    /// The hooks describe what UIKit dispatches, the control events the pair or the `UIAction`
    /// is registered for (`actions(forTarget:forControlEvent:)`, `enumerateEventHandlers`), and
    /// the target's type; ``ControlActionRule`` in the core decides what counts: value controls
    /// on value change (a continuous slider when the finger lifts), text fields on Return, other
    /// controls on touch-up, never UIKit's private plumbing (so a bar button tap, which UIKit
    /// sends from its private button view to a private target and then from the
    /// `UIBarButtonItem`, is reported once, as the item).
    @MainActor
    enum ControlActionHooks {
        /// Set while an app's `UIAction` is dispatched, so that anything it sends through the
        /// application is not reported a second time.
        private static var isDispatchingUIAction = false

        private typealias SendAction =
            @convention(c) (
                UIApplication, Selector, Selector, AnyObject?, AnyObject?, UIEvent?
            ) -> ObjCBool
        private typealias SendActionHook =
            @convention(block) (
                UIApplication, Selector, AnyObject?, AnyObject?, UIEvent?
            ) -> ObjCBool
        private typealias SendUIAction = @convention(c) (UIControl, Selector, UIAction) -> Void

        static func install() {
            _ = MethodHooks.hook(
                #selector(UIApplication.sendAction(_:to:from:for:)), of: UIApplication.self,
                makeBlock: sendActionBlock)
            _ = MethodHooks.hook(
                NSSelectorFromString("sendAction:"), of: UIControl.self, makeBlock: sendUIActionBlock)
        }

        /// Not main-actor isolated (``MethodHooks/onMainThread(_:_:)``): records on the main thread only.
        private nonisolated static func sendActionBlock(_ original: OriginalImplementation) -> Any {
            let block: SendActionHook = { application, action, target, sender, event in
                MethodHooks.onMainThread((target, sender, event)) { target, sender, event in
                    if !isDispatchingUIAction {
                        record(action: action, target: target, sender: sender, event: event)
                    }
                }
                return unsafeBitCast(original.implementation, to: SendAction.self)(
                    application, original.selector, action, target, sender, event)
            }
            return block
        }

        /// Not main-actor isolated (``MethodHooks/onMainThread(_:_:)``): records on the main thread only.
        private nonisolated static func sendUIActionBlock(_ original: OriginalImplementation) -> Any {
            let block: @convention(block) (UIControl, UIAction) -> Void = { control, action in
                let send = {
                    unsafeBitCast(original.implementation, to: SendUIAction.self)(
                        control, original.selector, action)
                }
                guard Thread.isMainThread else { return send() }
                var wasDispatching = false
                MethodHooks.onMainThread((control, action)) { control, action in
                    record(uiAction: action, from: control)
                    wasDispatching = isDispatchingUIAction
                    isDispatchingUIAction = true
                }
                send()
                MethodHooks.onMainThread(wasDispatching) { isDispatchingUIAction = $0 }
            }
            return block
        }

        /// Reports one target-action pair UIKit dispatches; the core decides whether it counts.
        static func record(action: Selector, target: AnyObject?, sender: AnyObject?, event: UIEvent?) {
            guard let adapter = UIKitCapture.installed, adapter.configuration.hooksControls else { return }
            let selector = NSStringFromSelector(action)
            let targetType = target.map { ResponderChainDescriber.typeName(of: $0) }
            switch sender {
            case let control as UIControl:
                adapter.capture.controlActed(
                    ResponderChainDescriber.element(for: control, target: target, event: event),
                    action: ActionDescription(
                        selector: selector, senderType: ResponderChainDescriber.typeName(of: control),
                        targetType: targetType,
                        controlEvents: registeredEvents(of: control, target: target, selector: action)))
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
                    element,
                    action: ActionDescription(
                        selector: selector, senderType: itemType, targetType: targetType))
            default:
                return
            }
        }

        /// Reports a `UIAction` a control runs, with the events it is registered for.
        static func record(uiAction action: UIAction, from control: UIControl) {
            guard let adapter = UIKitCapture.installed, adapter.configuration.hooksControls else { return }
            adapter.capture.controlActed(
                ResponderChainDescriber.element(for: control),
                action: ActionDescription(
                    selector: "UIAction", senderType: ResponderChainDescriber.typeName(of: control),
                    controlEvents: registeredEvents(of: control, uiAction: action)))
        }

        /// The control events for which `control` sends `selector` to `target`; `nil` for a
        /// `nil` target (the action travels the responder chain and its registration is the
        /// control's own business).
        static func registeredEvents(of control: UIControl, target: AnyObject?, selector: Selector)
            -> ControlEvents?
        {
            guard let target else { return nil }
            let name = NSStringFromSelector(selector)
            var events = ControlEvents()
            for bit in bits(of: control.allControlEvents) {
                let event = UIControl.Event(rawValue: bit)
                if control.actions(forTarget: target, forControlEvent: event)?.contains(name) == true {
                    events.insert(ControlEvents(rawValue: UInt64(bit)))
                }
            }
            return events
        }

        /// The control events `action` is registered for on `control` (matched by identifier).
        static func registeredEvents(of control: UIControl, uiAction action: UIAction) -> ControlEvents {
            var events = ControlEvents()
            control.enumerateEventHandlers { handler, _, controlEvents, _ in
                if let handler, handler === action || handler.identifier == action.identifier {
                    events.formUnion(ControlEvents(rawValue: UInt64(controlEvents.rawValue)))
                }
            }
            return events
        }

        private static func bits(of events: UIControl.Event) -> [UInt] {
            (0..<UInt.bitWidth).map { UInt(1) << $0 }.filter { events.rawValue & $0 != 0 }
        }
    }
#endif
