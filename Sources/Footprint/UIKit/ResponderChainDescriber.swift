#if canImport(UIKit) && !os(watchOS)
    import UIKit

    /// Describes UIKit objects for the capture core: views, controllers and the rest of the
    /// responder chain (`UIResponder.next`, up to the application and its delegate), with readable
    /// type names, sibling indexes, cell index paths, the attributes of each control type and the
    /// app's annotations (``FootprintAnnotations``).
    @MainActor
    enum ResponderChainDescriber {
        /// The most responders described for one element (a guard against unusual cycles).
        static let maximumChainLength = 64

        /// The readable type name of an object (`HomeViewController`, `UIButton`).
        static func typeName(of object: AnyObject) -> String {
            TypeName.readable(String(describing: type(of: object)))
        }

        /// The element `view` is, with its chain from itself up to the application delegate.
        /// - Parameters:
        ///   - target: the object that received the action, offered to key paths as `target`;
        ///     default none.
        ///   - event: the event that caused the action, when known (whether a finger is still
        ///     down is read from its touches, else from the control's tracking state).
        static func element(for view: UIView, target: AnyObject? = nil, event: UIEvent? = nil)
            -> ElementDescription
        {
            let chain = self.chain(from: view)
            var element = ElementDescription(
                chain: chain, kind: kind(of: view), attributes: attributes(of: view),
                isSecureTextEntry: (view as? UITextField)?.isSecureTextEntry ?? false,
                keyPathSource: KeyValueCodingSource(
                    roots: keyPathRoots(view: view, controller: nearestController(of: view), target: target)))
            #if !os(tvOS)
                if let slider = view as? UISlider {
                    element.isContinuous = slider.isContinuous
                    element.isTouchDown = isTouchDown(on: slider, event: event)
                }
            #endif
            return element
        }

        /// Where `object`'s class comes from (key-value-observing subclasses are looked through).
        static func origin(of object: AnyObject) -> ClassOrigin {
            var cls: AnyClass? = object_getClass(object)
            while let current = cls, NSStringFromClass(current).hasPrefix(TypeName.observingPrefix) {
                cls = class_getSuperclass(current)
            }
            guard let cls else { return ClassOrigin(runtimeName: "", imagePath: nil) }
            return origin(ofClass: cls)
        }

        /// Where `cls` comes from: its runtime name and the binary image that defines it.
        static func origin(ofClass cls: AnyClass) -> ClassOrigin {
            ClassOrigin(
                runtimeName: NSStringFromClass(cls),
                imagePath: class_getImageName(cls).map { String(cString: $0) })
        }

        /// The responder chain from `responder` up to the application delegate, described.
        static func chain(from responder: UIResponder) -> [ResponderDescription] {
            var chain: [ResponderDescription] = []
            var current: UIResponder? = responder
            while let next = current, chain.count < maximumChainLength {
                chain.append(describe(next))
                current = next.next
            }
            return chain
        }

        /// One responder.
        static func describe(_ responder: UIResponder) -> ResponderDescription {
            let annotations = responder.footprint
            var description = ResponderDescription(
                typeName(of: responder), role: .other, properties: annotations.properties,
                ignoresTracking: annotations.isIgnored)
            if let view = responder as? UIView {
                description.role = .view
                description.accessibilityIdentifier = view.accessibilityIdentifier
                description.itemID = annotations.itemID
                if let placement = cellPlacement(of: view) {
                    let indexPath = placement.indexPath
                    description.cellIndexPath = CellIndexPath(section: indexPath.section, row: indexPath.item)
                    if let identity = placement.list.footprint.listItems?(indexPath) {
                        if description.itemID == nil { description.itemID = identity.id }
                        for (key, value) in identity.properties where description.properties[key] == nil {
                            description.properties[key] = value
                        }
                    }
                } else if let superview = view.superview,
                    let position = superview.subviews.firstIndex(where: { $0 === view })
                {
                    description.siblingIndex = SiblingIndex.index(
                        at: position, in: superview.subviews.map { typeName(of: $0) })
                }
            } else if let controller = responder as? UIViewController {
                description.role = .viewController
                description.parentType = controller.parent.map { typeName(of: $0) }
            }
            return description
        }

        /// A controller as a page.
        static func page(for controller: UIViewController) -> PageDescription {
            PageDescription(
                controllerType: typeName(of: controller),
                instanceID: UInt64(UInt(bitPattern: ObjectIdentifier(controller))),
                title: controller.navigationItem.title ?? controller.title,
                parentType: controller.parent.map { typeName(of: $0) },
                ignoresTracking: controller.footprint.isIgnored)
        }

        /// The controller the user sees in `window`: from its root through what each presents
        /// (an alert, or a controller being dismissed, excluded) and the visible child of
        /// navigation and tab containers.
        static func topController(of window: UIWindow?) -> UIViewController? {
            var top = window?.rootViewController
            var steps = 0
            while let current = top, steps < maximumChainLength {
                steps += 1
                if let presented = current.presentedViewController, !(presented is UIAlertController),
                    !presented.isBeingDismissed
                {
                    top = presented
                } else if let navigation = current as? UINavigationController,
                    let visible = navigation.topViewController
                {
                    top = visible
                } else if let tabs = current as? UITabBarController,
                    let selected = tabs.selectedViewController
                {
                    top = selected
                } else {
                    return current
                }
            }
            return top
        }

        /// The nearest controller on `responder`'s chain.
        static func nearestController(of responder: UIResponder) -> UIViewController? {
            var current: UIResponder? = responder
            var steps = 0
            while let next = current, steps < maximumChainLength {
                if let controller = next as? UIViewController { return controller }
                current = next.next
                steps += 1
            }
            return nil
        }

        /// The roots key paths may start from.
        static func keyPathRoots(view: UIView?, controller: UIViewController?, target: AnyObject?) -> [String:
            AnyObject]
        {
            var roots: [String: AnyObject] = [:]
            if let view { roots["view"] = view }
            if let controller { roots["viewController"] = controller }
            if let target { roots["target"] = target }
            return roots
        }

        /// The list and index path of a table or collection cell.
        static func cellPlacement(of view: UIView) -> (list: UIScrollView, indexPath: IndexPath)? {
            if let cell = view as? UITableViewCell, let table = enclosing(UITableView.self, of: cell),
                let indexPath = table.indexPath(for: cell)
            {
                return (table, indexPath)
            }
            if let cell = view as? UICollectionViewCell,
                let collection = enclosing(UICollectionView.self, of: cell),
                let indexPath = collection.indexPath(for: cell)
            {
                return (collection, indexPath)
            }
            return nil
        }

        private static func enclosing<List: UIView>(_ type: List.Type, of view: UIView) -> List? {
            var current = view.superview
            while let candidate = current {
                if let list = candidate as? List { return list }
                current = candidate.superview
            }
            return nil
        }

        // MARK: Kinds and attributes

        /// Whether a finger is still down on `control`: from the event's touches when there is
        /// one, else from the control's tracking state.
        private static func isTouchDown(on control: UIControl, event: UIEvent?) -> Bool {
            guard let touches = event?.allTouches else { return control.isTracking }
            return touches.contains { $0.phase != .ended && $0.phase != .cancelled }
        }

        private static func kind(of view: UIView) -> ElementKind {
            switch view {
            case is UIButton: return .button
            case is UISegmentedControl: return .segmentedControl
            #if !os(tvOS)
                case is UISwitch: return .toggle
                case is UIStepper: return .stepper
                case is UISlider: return .slider
                case is UIDatePicker: return .datePicker
            #endif
            case is UIPageControl: return .pageControl
            case is UITextField, is UITextView, is UISearchBar: return .textInput
            case is UITableViewCell, is UICollectionViewCell: return .cell
            default: return .other
            }
        }

        private static func attributes(of view: UIView) -> ElementAttributes {
            var attributes = ElementAttributes()
            if let control = view as? UIControl {
                attributes.isEnabled = control.isEnabled
                attributes.isSelected = control.isSelected
            }
            switch view {
            case let button as UIButton:
                attributes.title =
                    button.currentTitle ?? button.configuration?.title ?? button.titleLabel?.text
                    ?? button.accessibilityLabel
                attributes.state = Int(button.state.rawValue)
            case let segments as UISegmentedControl:
                attributes.selectedSegmentIndex = segments.selectedSegmentIndex
                if segments.selectedSegmentIndex != UISegmentedControl.noSegment {
                    attributes.title = segments.titleForSegment(at: segments.selectedSegmentIndex)
                }
            #if !os(tvOS)
                case let toggle as UISwitch:
                    attributes.isOn = toggle.isOn
                case let stepper as UIStepper:
                    attributes.value = stepper.value
                case let slider as UISlider:
                    attributes.value = Double(slider.value)
            #endif
            case is UITextField, is UITextView, is UISearchBar:
                break  // typed text is never read
            case let cell as UITableViewCell:
                attributes.title = (cell.contentConfiguration as? UIListContentConfiguration)?.text
            case let cell as UICollectionViewCell:
                attributes.title = (cell.contentConfiguration as? UIListContentConfiguration)?.text
            case let label as UILabel:
                attributes.title = label.text
            default:
                attributes.title = view.accessibilityLabel
            }
            return attributes
        }
    }
#endif
