extension AutoCapture {
    /// The snapshot content of a described screen, under the plan in force: each element's
    /// exact and similar path and plan event come from the same code as a tap's
    /// `$element_click`, its text from the same redaction; ignored elements and secure text
    /// fields are flagged and carry no text. Everything is kept within `limits`: elements past
    /// ``ScreenSnapshot/Limits/maximumElements`` (the front-most ones) are left out, so are
    /// elements whose path is too long or whose frame is missing, not finite or out of range;
    /// text is cut to ``ScreenSnapshot/Limits/maximumTextBytes`` on a character boundary; an
    /// image over its limits, or of a description that is not complete, is dropped (the
    /// dashboard then draws a wireframe).
    /// - Parameters:
    ///   - description: the screen, as the adapter describes it.
    ///   - limits: the bounds to keep. Default ``ScreenSnapshot/Limits/init()``.
    public func snapshotContent(of description: ScreenDescription, limits: ScreenSnapshot.Limits = .init())
        -> ScreenContent
    {
        let matcher = plans.current
        var elements: [ScreenSnapshot.Element] = []
        elements.reserveCapacity(min(description.elements.count, limits.maximumElements))
        for item in description.elements {
            guard elements.count < limits.maximumElements else { break }
            guard let element = snapshotElement(item, matcher: matcher, limits: limits) else { continue }
            elements.append(element)
        }
        // Masking fails closed: a walk cut short may have missed views to paint over.
        var image = description.isComplete ? description.image : nil
        if let candidate = image, !Self.fits(candidate, limits) { image = nil }
        return ScreenContent(
            page: snapshotPageName(description.page, matcher: matcher, limits: limits),
            screen: Self.bounded(description.screen, limits), elements: elements, image: image)
    }

    private func snapshotElement(_ item: ScreenElement, matcher: PlanMatcher, limits: ScreenSnapshot.Limits)
        -> ScreenSnapshot.Element?
    {
        let element = item.element
        guard let frame = element.frame, Self.fits(frame, limits) else { return nil }
        let (path, event) = Self.resolve(element, action: item.action, under: matcher)
        guard path.exact.utf8.count <= limits.maximumPathBytes,
            path.similar.utf8.count <= limits.maximumPathBytes
        else { return nil }
        let ignored = element.isSecureTextEntry || isIgnored(element)
        var planEntry = event?.id
        if let id = planEntry, id.utf8.count > limits.maximumFieldBytes { planEntry = nil }
        return ScreenSnapshot.Element(
            path: path.exact, similarPath: path.similar, kind: Self.snapshotKind(item),
            frame: frame,
            text: ignored ? nil : elementText(element).map { Self.cut($0, toBytes: limits.maximumTextBytes) },
            ignored: ignored, planned: event != nil, planEntry: planEntry)
    }

    /// The page a snapshot is of: the described controller's page name, else the page the user
    /// is on, else the controller's type; never empty.
    private func snapshotPageName(
        _ page: PageDescription?, matcher: PlanMatcher, limits: ScreenSnapshot.Limits
    )
        -> String
    {
        let policy = PagePolicy(plan: matcher.plan, ignoredTypes: configuration.ignoredTypes)
        let name =
            page.flatMap { policy.page(for: $0)?.name } ?? currentPageName ?? page?.controllerType
            ?? "Unknown"
        return Self.cut(name.isEmpty ? "Unknown" : name, toBytes: limits.maximumFieldBytes)
    }

    /// The wire kind of an element: its route for cells and gestures, else its control kind.
    static func snapshotKind(_ item: ScreenElement) -> String {
        switch item.route {
        case .cell: return "cell"
        case .gesture: return "gesture"
        case .control: break
        }
        switch item.element.kind {
        case .button: return "button"
        case .toggle: return "switch"
        case .segmentedControl: return "segmented_control"
        case .stepper: return "stepper"
        case .slider: return "slider"
        case .datePicker: return "date_picker"
        case .pageControl: return "page_control"
        case .textInput: return "text_field"
        case .cell: return "cell"
        case .alertAction: return "alert_action"
        case .other: return "control"
        }
    }

    /// `text` cut to at most `limit` UTF-8 bytes, on a character boundary.
    static func cut(_ text: String, toBytes limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        var result = ""
        var used = 0
        for character in text {
            let size = character.utf8.count
            guard used + size <= limit else { break }
            result.append(character)
            used += size
        }
        return result
    }

    private static func fits(_ frame: ScreenSnapshot.Frame, _ limits: ScreenSnapshot.Limits) -> Bool {
        let edge = -limits.maximumCoordinate...limits.maximumCoordinate
        let size = 0...limits.maximumCoordinate
        return edge.contains(frame.x) && edge.contains(frame.y) && size.contains(frame.width)
            && size.contains(frame.height)
    }

    private static func fits(_ image: ScreenSnapshot.Image, _ limits: ScreenSnapshot.Limits) -> Bool {
        let pixels = 1...limits.maximumImagePixels
        return pixels.contains(image.width) && pixels.contains(image.height)
            && image.data.count <= limits.maximumImageBytes && image.format.hasSignature(image.data)
    }

    private static func bounded(_ screen: ScreenSnapshot.Screen, _ limits: ScreenSnapshot.Limits)
        -> ScreenSnapshot.Screen
    {
        func clamp(_ value: Double, _ range: ClosedRange<Double>) -> Double {
            value.isFinite ? min(max(value, range.lowerBound), range.upperBound) : range.lowerBound
        }
        let points = 1...limits.maximumScreenPoints
        return ScreenSnapshot.Screen(
            width: clamp(screen.width, points), height: clamp(screen.height, points),
            scale: clamp(screen.scale, limits.scaleRange))
    }
}
