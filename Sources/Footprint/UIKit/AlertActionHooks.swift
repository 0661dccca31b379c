#if canImport(UIKit) && !os(watchOS)
    import UIKit

    /// Alert and action-sheet choices. The factory `+[UIAlertAction actionWithTitle:style:handler:]`
    /// (which Swift's `UIAlertAction(title:style:handler:)` calls) is hooked to wrap the handler:
    /// the wrapper reports the choice, then calls the app's handler if it gave one (so buttons
    /// without a handler, such as Cancel, are reported too). `UIAlertController.addAction(_:)`
    /// is hooked to remember the alert's title and the action's index.
    ///
    /// The presenter chain is the top controller when the handler runs (the alert is dismissed
    /// by then). Alerts built without this factory (SwiftUI's `.alert`) are not seen.
    @MainActor
    enum AlertActionHooks {
        private typealias Handler = @convention(block) (UIAlertAction) -> Void

        private typealias Factory =
            @convention(c) (AnyObject, Selector, NSString?, Int, AnyObject?) -> AnyObject
        private typealias AddAction = @convention(c) (UIAlertController, Selector, UIAlertAction) -> Void

        static func install() {
            _ = MethodHooks.hook(
                NSSelectorFromString("actionWithTitle:style:handler:"), of: UIAlertAction.self,
                classMethod: true, makeBlock: factoryBlock)
            _ = MethodHooks.hook(
                #selector(UIAlertController.addAction(_:)), of: UIAlertController.self,
                makeBlock: addActionBlock)
        }

        /// Not main-actor isolated (``MethodHooks/onMainThread(_:_:)``): an action may be built on
        /// any thread; its handler is wrapped wherever it is built.
        private nonisolated static func factoryBlock(_ original: OriginalImplementation) -> Any {
            let block: @convention(block) (AnyObject, NSString?, Int, AnyObject?) -> AnyObject = {
                actionClass, title, style, handler in
                unsafeBitCast(original.implementation, to: Factory.self)(
                    actionClass, original.selector, title, style, reportingHandler(calling: handler))
            }
            return block
        }

        /// Not main-actor isolated: remembers the placement on the main thread only.
        private nonisolated static func addActionBlock(_ original: OriginalImplementation) -> Any {
            let block: @convention(block) (UIAlertController, UIAlertAction) -> Void = { alert, action in
                MethodHooks.onMainThread((alert, action)) { alert, action in
                    AssociationKey.set(
                        AlertActionPlacement(
                            alertType: ResponderChainDescriber.typeName(of: alert), alertTitle: alert.title,
                            index: alert.actions.count),
                        on: action, AlertActionPlacement.self)
                }
                unsafeBitCast(original.implementation, to: AddAction.self)(alert, original.selector, action)
            }
            return block
        }

        /// A handler that reports the choice (on the main thread), then calls `handler` when
        /// there is one.
        private nonisolated static func reportingHandler(calling handler: AnyObject?) -> AnyObject {
            let appHandler = handler.map { unsafeBitCast($0, to: Handler.self) }
            let wrapper: @convention(block) (UIAlertAction) -> Void = { action in
                MethodHooks.onMainThread(action) { report($0) }
                appHandler?(action)
            }
            return unsafeBitCast(wrapper, to: AnyObject.self)
        }

        private static func report(_ action: UIAlertAction) {
            guard let adapter = UIKitCapture.installed, adapter.configuration.hooksAlerts else { return }
            let placement = AssociationKey.value(
                of: action, AlertActionPlacement.self, as: AlertActionPlacement.self)
            adapter.capture.alertActionChosen(
                AlertActionDescription(
                    alertType: placement?.alertType ?? "UIAlertController", alertTitle: placement?.alertTitle,
                    actionTitle: action.title, actionIndex: placement?.index ?? 0,
                    presenterChain: topViewController().map { ResponderChainDescriber.chain(from: $0) } ?? [])
            )
        }

        /// The controller the user sees under the alert.
        private static func topViewController() -> UIViewController? {
            ResponderChainDescriber.topController(of: ScreenDescriber.keyWindow())
        }
    }

    /// Where an action sits in its alert, remembered when it is added.
    final class AlertActionPlacement {
        let alertType: String
        let alertTitle: String?
        let index: Int

        init(alertType: String, alertTitle: String?, index: Int) {
            self.alertType = alertType
            self.alertTitle = alertTitle
            self.index = index
        }
    }
#endif
