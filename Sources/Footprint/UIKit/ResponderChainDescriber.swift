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
        /// - Parameter target: the object that received the action, offered to key paths as
        ///   `target`; default none.
        static func element(for view: UIView, target: AnyObject? = nil) -> ElementDescription {
            let chain = self.chain(from: view)
            return ElementDescription(
                chain: chain, kind: kind(of: view), attributes: attributes(of: view),
                isSecureTextEntry: (view as? UITextField)?.isSecureTextEntry ?? false,
                keyPathSource: KeyValueCodingSource(
                    roots: keyPathRoots(view: view, controller: nearestController(of: view), target: target)))
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
            } else if responder is UIViewController {
                description.role = .viewController
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

        /// Whether `control` reports on value change (a switch, segmented control, stepper,
        /// slider, date picker or page control) rather than on touch-up.
        static func isValueControl(_ control: UIControl) -> Bool {
            #if os(tvOS)
                return control is UISegmentedControl || control is UIPageControl
            #else
                return control is UISwitch || control is UISegmentedControl || control is UIStepper
                    || control is UISlider || control is UIDatePicker || control is UIPageControl
            #endif
        }

        /// Whether `control` is a continuous slider whose finger is still down.
        static func isDraggingContinuousSlider(_ control: UIControl, event: UIEvent?) -> Bool {
            #if os(tvOS)
                return false
            #else
                guard let slider = control as? UISlider, slider.isContinuous else { return false }
                guard let touches = event?.allTouches else { return slider.isTracking }
                return touches.contains { $0.phase != .ended && $0.phase != .cancelled }
            #endif
        }

        private static func kind(of view: UIView) -> ElementKind {
            switch view {
            case is UIButton: return .button
            case is UISegmentedControl: return .segmentedControl
            #if !os(tvOS)
                case is UISwitch: return .toggle
                case is UIStepper: return .stepper
                case is UISlider: return .slider
            #endif
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
