#if canImport(UIKit) && !os(watchOS)
    import UIKit

    /// Describes the key window for a connect session's snapshot (``ScreenDescription``): every
    /// control, cell and watched gesture a tap could be captured on, with the action the tap
    /// would report and its frame in window coordinates (`convert(_:to: nil)`), and a JPEG of the
    /// window with secure text fields and ignored views painted over before it is encoded.
    ///
    /// Reads the window and draws it on the main thread, and only while a connect session is open;
    /// the JPEG encoding and its downscaled retries run off it (``encode(_:)``).
    @MainActor
    enum ScreenDescriber {
        /// The most views looked at for one snapshot.
        static let maximumViewsVisited = 20_000

        /// The window drawn with its private views painted over, at the first scale, to be
        /// encoded on another thread. The image is never changed once drawn.
        struct RenderedScreen: @unchecked Sendable {
            let image: UIImage
            let scale: Double
            let sizing: ScreenshotSizing
        }

        /// The snapshot content of the key window now (without its image) and the window drawn
        /// for it, or `nil` when there is no window.
        static func capture(adapter: UIKitCapture) -> (content: ScreenContent, screen: RenderedScreen?)? {
            keyWindow().map { capture(of: $0, adapter: adapter) }
        }

        /// The snapshot content of `window` now, its image encoded here (tests).
        static func content(of window: UIWindow, adapter: UIKitCapture) -> ScreenContent {
            var (content, screen) = capture(of: window, adapter: adapter)
            content.image = screen.flatMap(encode)
            return content
        }

        /// The snapshot content of `window` now, without its image, and the window drawn for it.
        static func capture(of window: UIWindow, adapter: UIKitCapture) -> (
            content: ScreenContent, screen: RenderedScreen?
        ) {
            var walk = Walk(ignoredTypes: adapter.capture.configuration.ignoredTypes)
            walk.visit(window, in: window)
            let scale = Double(window.screen.scale)
            let description = ScreenDescription(
                page: ResponderChainDescriber.topController(of: window).map {
                    ResponderChainDescriber.page(for: $0)
                },
                screen: ScreenSnapshot.Screen(
                    width: Double(window.bounds.width), height: Double(window.bounds.height), scale: scale),
                elements: walk.elements, isComplete: walk.isComplete)
            let content = adapter.capture.snapshotContent(of: description)
            // Everything the core flags as ignored is painted over too.
            let masks =
                walk.masks
                + content.elements.filter(\.ignored).map {
                    CGRect(x: $0.frame.x, y: $0.frame.y, width: $0.frame.width, height: $0.frame.height)
                }
            // A walk cut short sends no screenshot (the core drops it too): masking fails closed.
            guard adapter.configuration.capturesScreenshots, walk.isComplete else { return (content, nil) }
            return (content, render(window, masking: masks, sizing: adapter.configuration.screenshotSizing))
        }

        /// The window the user sees: the key window of the application's scenes.
        static func keyWindow() -> UIWindow? {
            let windows = HostApplication.windows
            return windows.first(where: \.isKeyWindow) ?? windows.first
        }

        /// `window` drawn at the first scale, with `masks` painted over.
        static func render(_ window: UIWindow, masking masks: [CGRect], sizing: ScreenshotSizing)
            -> RenderedScreen
        {
            let scale = sizing.firstScale(screenScale: Double(window.screen.scale))
            let image = UIGraphicsImageRenderer(bounds: window.bounds, format: format(scale: scale)).image {
                context in
                window.drawHierarchy(in: window.bounds, afterScreenUpdates: false)
                UIColor.darkGray.setFill()
                for mask in masks { context.fill(mask) }
            }
            return RenderedScreen(image: image, scale: scale, sizing: sizing)
        }

        /// The screenshot, JPEG, under the byte cap (the drawn window scaled down until it
        /// fits); `nil` when it cannot be made small enough. Any thread.
        nonisolated static func encode(_ screen: RenderedScreen) -> ScreenSnapshot.Image? {
            var image = screen.image
            var scale = screen.scale
            while true {
                guard let data = image.jpegData(compressionQuality: CGFloat(screen.sizing.quality)) else {
                    return nil
                }
                switch screen.sizing.next(afterScale: scale, encodedBytes: data.count) {
                case nil:
                    return ScreenSnapshot.Image(
                        format: .jpeg, width: Int((image.size.width * image.scale).rounded()),
                        height: Int((image.size.height * image.scale).rounded()), data: [UInt8](data))
                case .retry(let smaller)?:
                    scale = smaller
                    // From the first drawing, masks included: the window is not drawn again.
                    let size = screen.image.size
                    image = UIGraphicsImageRenderer(size: size, format: format(scale: smaller)).image { _ in
                        screen.image.draw(in: CGRect(origin: .zero, size: size))
                    }
                case .giveUp?:
                    return nil
                }
            }
        }

        /// An opaque, standard-range format at `scale` (JPEG has no extended range, and standard
        /// range takes half the memory).
        nonisolated private static func format(scale: Double) -> UIGraphicsImageRendererFormat {
            let format = UIGraphicsImageRendererFormat.preferred()
            format.preferredRange = .standard
            format.scale = CGFloat(scale)
            format.opaque = true
            return format
        }

        /// One walk over a window's views, back to front.
        @MainActor
        struct Walk {
            let ignoredTypes: Set<String>
            var elements: [ScreenElement] = []
            var masks: [CGRect] = []
            var visited = 0
            /// False once a limit stopped the walk before every view was looked at.
            var isComplete = true

            init(ignoredTypes: Set<String>) {
                self.ignoredTypes = ignoredTypes
            }

            mutating func visit(_ view: UIView, in window: UIWindow) {
                visited += 1
                guard visited <= ScreenDescriber.maximumViewsVisited,
                    elements.count < ScreenSnapshot.Limits().maximumElements
                else {
                    isComplete = false
                    return
                }
                guard !view.isHidden, view.alpha > 0.01 else { return }
                let frame = view.convert(view.bounds, to: nil)
                let isOnScreen = frame.intersects(window.bounds)
                // A view off screen that clips its subviews hides them all.
                guard isOnScreen || !view.clipsToBounds else { return }
                let isIgnored =
                    view.footprint.isIgnored
                    || ignoredTypes.contains(ResponderChainDescriber.typeName(of: view))
                if isIgnored || (view as? UITextField)?.isSecureTextEntry == true {
                    // Where it is drawn now too: the screenshot shows animations in flight.
                    let presented = view.layer.presentation().map { $0.convert($0.bounds, to: nil) }
                    masks.append(ScreenMask.rect(model: frame, presentation: presented))
                }
                if isOnScreen, let element = Self.element(for: view, frame: frame) {
                    elements.append(element)
                }
                for subview in view.subviews { visit(subview, in: window) }
            }

            /// The element `view` is, when a tap on it would be captured.
            static func element(for view: UIView, frame: CGRect) -> ScreenElement? {
                let placed = { () -> ElementDescription in
                    var element = ResponderChainDescriber.element(for: view)
                    element.frame = ScreenSnapshot.Frame(
                        x: Double(frame.minX), y: Double(frame.minY), width: Double(frame.width),
                        height: Double(frame.height))
                    return element
                }
                if let placement = ResponderChainDescriber.cellPlacement(of: view) {
                    var element = placed()
                    element.kind = .cell
                    let selector =
                        placement.list is UITableView
                        ? "tableView:didSelectRowAtIndexPath:" : "collectionView:didSelectItemAtIndexPath:"
                    return ScreenElement(
                        element: element,
                        action: ActionDescription(
                            selector: selector,
                            senderType: ResponderChainDescriber.typeName(of: placement.list)),
                        route: .cell)
                }
                if let control = view as? UIControl {
                    let element = placed()
                    guard let action = Self.action(of: control, element: element) else { return nil }
                    return ScreenElement(element: element, action: action, route: .control)
                }
                for recognizer in view.gestureRecognizers ?? [] where recognizer.isEnabled {
                    let kind = GestureHooks.kind(of: recognizer)
                    let typeName = ResponderChainDescriber.typeName(of: recognizer)
                    guard GestureRule.isWatched(typeName: typeName, kind: kind),
                        let name = GestureRule.actionName(kind: kind, phase: kind == .tap ? .ended : .began)
                    else { continue }
                    return ScreenElement(
                        element: placed(), action: ActionDescription(selector: name, senderType: typeName),
                        route: .gesture)
                }
                return nil
            }

            /// The action a tap (or value change) on `control` reports first, as
            /// ``ControlActionHooks`` describes it: its target-action pairs, then its `UIAction`s.
            static func action(of control: UIControl, element: ElementDescription) -> ActionDescription? {
                let senderType = ResponderChainDescriber.typeName(of: control)
                for target in control.allTargets {
                    let object: AnyObject? = target is NSNull ? nil : (target as AnyObject)
                    for bit in ControlActionRule.countingEvents(for: element.kind).bits {
                        let event = UIControl.Event(rawValue: UInt(truncatingIfNeeded: bit))
                        for name in control.actions(forTarget: object, forControlEvent: event) ?? [] {
                            let action = ActionDescription(
                                selector: name, senderType: senderType,
                                targetType: object.map { ResponderChainDescriber.typeName(of: $0) },
                                controlEvents: object.flatMap {
                                    ControlActionHooks.registeredEvents(
                                        of: control, target: $0, selector: NSSelectorFromString(name))
                                })
                            if ControlActionRule.counts(element, action: action) { return action }
                        }
                    }
                }
                var found: ActionDescription?
                control.enumerateEventHandlers { handler, _, events, stop in
                    guard handler != nil else { return }
                    let action = ActionDescription(
                        selector: "UIAction", senderType: senderType,
                        controlEvents: ControlEvents(rawValue: UInt64(events.rawValue)))
                    if ControlActionRule.counts(element, action: action) {
                        found = action
                        stop = true
                    }
                }
                return found
            }
        }
    }

    extension ControlEvents {
        /// Each set bit alone, lowest first.
        var bits: [UInt64] {
            (0..<UInt64.bitWidth).map { UInt64(1) << UInt64($0) }.filter { rawValue & $0 != 0 }
        }
    }
#endif
