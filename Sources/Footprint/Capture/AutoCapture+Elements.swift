extension AutoCapture {
    /// A control sent an action (`sendAction(_:to:from:for:)`, a `UIAction`). It is captured
    /// when ``ControlActionRule`` says it is the user's meaning: the events it is registered for
    /// (``ActionDescription/controlEvents``) include one that counts for the element's kind, it
    /// is not a continuous slider still under the finger, and it is not UIKit's own plumbing.
    public func controlActed(_ element: ElementDescription, action: ActionDescription) {
        guard ControlActionRule.counts(element, action: action) else { return }
        captureElement(element, action: action, switchedOn: \.controls)
    }

    /// A table or collection cell was selected. `cell`'s chain starts at the cell, which carries
    /// its ``ResponderDescription/cellIndexPath``; `action` is the delegate selector and the
    /// list's type (`tableView:didSelectRowAtIndexPath:` from `UITableView`).
    public func cellSelected(_ cell: ElementDescription, action: ActionDescription) {
        captureElement(cell, action: action, switchedOn: \.cells)
    }

    /// A gesture recognizer fired (report discrete gestures when recognized, continuous ones when
    /// they end). `view` is the view it is attached to; `action` its target's selector and the
    /// recognizer's type.
    public func gestureRecognized(on view: ElementDescription, action: ActionDescription) {
        captureElement(view, action: action, switchedOn: \.gestures)
    }

    /// A watched gesture recognizer (``GestureRule/isWatched(typeName:kind:)``) called its
    /// target: reported as `tap` when a tap is recognized, `longPress` when a long press begins,
    /// not otherwise.
    /// - Parameters:
    ///   - view: the view it is attached to.
    ///   - recognizerType: its type name.
    ///   - kind: tap or long press.
    ///   - phase: its state now.
    public func gestureRecognized(
        on view: ElementDescription, recognizerType: String, kind: GestureKind, phase: GesturePhase
    ) {
        guard GestureRule.isWatched(typeName: recognizerType, kind: kind),
            let name = GestureRule.actionName(kind: kind, phase: phase)
        else { return }
        gestureRecognized(on: view, action: ActionDescription(selector: name, senderType: recognizerType))
    }

    /// An alert or action-sheet action was chosen. Its path is
    /// `#alertAction#<AlertType>#UIAlertAction[index]#<AlertType>#<presenter chain>`.
    public func alertActionChosen(_ choice: AlertActionDescription) {
        var properties: JSONObject = [:]
        if let title = choice.alertTitle { properties["$alert_title"] = .string(TextRedactor.redact(title)) }
        let chain =
            [
                ResponderDescription("UIAlertAction", role: .view, siblingIndex: choice.actionIndex),
                ResponderDescription(choice.alertType, role: .viewController, properties: properties),
            ] + choice.presenterChain
        let element = ElementDescription(
            chain: chain, kind: .alertAction, attributes: ElementAttributes(title: choice.actionTitle))
        captureElement(
            element, action: ActionDescription(selector: "alertAction", senderType: choice.alertType),
            switchedOn: \.alerts)
    }

    /// A purpose method the plan names was called (the adapter hooks ``CaptureHooks/methods``).
    /// Calls beyond ``AutoCaptureConfiguration/purposeMethodLimit`` are dropped and counted in
    /// the plan's health.
    /// - Parameters:
    ///   - targetType: the type name the plan names (the hooked type).
    ///   - method: the method's selector name.
    ///   - values: where the event's key-path properties are read (root `target` is the
    ///     receiver by convention).
    public func methodCalled(targetType: String, method: String, values: (any KeyPathValueSource)? = nil) {
        let matcher = plans.current
        let plan = matcher.plan
        guard allows(\.methods, under: plan),
            let event = matcher.event(target: targetType, method: method),
            !plan.blockedEvents.contains(event.name)
        else { return }
        switch methodLimiter.call(CaptureHooks.Method(target: targetType, method: method), at: clock.now()) {
        case .record: break
        case .drop(let report):
            if report { reportPlanHealth() }
            return
        }
        settlePages(plan: plan)
        var properties = Self.keyPathProperties(of: event, from: values)
        properties["$event_id"] = .string(event.id)
        properties["$trigger"] = .string(PlanTrigger.methodKey(target: targetType, method: method))
        if let page = currentPageName { properties["$page_name"] = .string(page) }
        emit(CapturedEvent(kind: .track(event: event.name), properties: properties))
    }

    private func captureElement(
        _ element: ElementDescription, action: ActionDescription,
        switchedOn kind: KeyPath<CaptureSwitches, Bool>
    ) {
        let matcher = plans.current
        let plan = matcher.plan
        guard allows(kind, under: plan),
            !plan.blockedEvents.contains(CapturedEventName.elementClick),
            !isIgnored(element)
        else { return }
        let (path, event) = Self.resolve(element, action: action, under: matcher)
        if event == nil, plan.uploadMode == .matched { return }
        if let event, plan.blockedEvents.contains(event.name) { return }
        settlePages(plan: plan)

        var properties = event.map { Self.keyPathProperties(of: $0, from: element.keyPathSource) } ?? [:]
        for responder in element.chain {
            for (key, value) in responder.properties where properties[key] == nil { properties[key] = value }
        }
        properties["$element_path"] = .string(path.exact)
        properties["$element_similar_path"] = .string(path.similar)
        properties["$element_type"] = .string(element.typeName)
        if let text = elementText(element) { properties["$element_text"] = .string(text) }
        if let position = path.position { properties["$element_position"] = .string(position.description) }
        if let identifier = element.chain.first?.accessibilityIdentifier {
            properties["$element_id"] = .string(identifier)
        }
        if let itemID = element.chain.lazy.compactMap(\.itemID).first {
            properties["$item_id"] = .string(itemID)
        }
        if let page = pageName(of: element, plan: plan) { properties["$page_name"] = .string(page) }
        if let event {
            properties["$event_id"] = .string(event.id)
            properties["$event_name"] = .string(event.name)
        }
        emit(CapturedEvent(kind: .track(event: CapturedEventName.elementClick), properties: properties))
    }

    /// The path of `action` on `element` and the plan event it raises, if any: the one
    /// computation behind both an `$element_click` and a screen snapshot's element, so that the
    /// two can never disagree.
    static func resolve(_ element: ElementDescription, action: ActionDescription, under matcher: PlanMatcher)
        -> (path: ElementPath, event: PlanEvent?)
    {
        let path = ElementPath(element: element, action: action)
        let event = matcher.event(exactPath: path.exact, similarPath: path.similar) {
            element.conditionValue(named: $0)
        }
        return (path, event)
    }

    /// Whether the app opted the element out: on itself or an ancestor, by flag or by type.
    func isIgnored(_ element: ElementDescription) -> Bool {
        ignores(chain: element.chain)
    }

    /// Whether the app opted out something on `chain` (an element or list, up its responder
    /// chain): by ``ResponderDescription/ignoresTracking`` or by an ignored type name.
    public func ignores(chain: [ResponderDescription]) -> Bool {
        let ignoredTypes = configuration.ignoredTypes
        if ignoredTypes.isEmpty { return chain.contains { $0.ignoresTracking } }
        return chain.contains { $0.ignoresTracking || ignoredTypes.contains($0.typeName) }
    }

    /// The element's text, redacted and cut; never for secure or text-input elements.
    func elementText(_ element: ElementDescription) -> String? {
        guard !element.isSecureTextEntry, element.kind != .textInput, let title = element.attributes.title,
            !title.isEmpty
        else { return nil }
        let redacted = TextRedactor.redact(title)
        return redacted.count > configuration.maximumTextLength
            ? String(redacted.prefix(configuration.maximumTextLength)) : redacted
    }

    private func pageName(of element: ElementDescription, plan: TrackingPlan) -> String? {
        pageName(ofChain: element.chain, plan: plan)
    }

    /// The page an element or a list is on: the nearest controller on its responder chain that
    /// is a page (``PagePolicy/pageName(ofChain:)``: a child controller the plan does not name
    /// belongs to the page around it), else the page the user is on.
    public func pageName(ofChain chain: [ResponderDescription]) -> String? {
        pageName(ofChain: chain, plan: plans.current.plan)
    }

    private func pageName(ofChain chain: [ResponderDescription], plan: TrackingPlan) -> String? {
        PagePolicy(plan: plan).pageName(ofChain: chain) ?? currentPageName
    }

    private static func keyPathProperties(of event: PlanEvent, from source: (any KeyPathValueSource)?)
        -> JSONObject
    {
        guard let source, !event.properties.isEmpty else { return [:] }
        var properties: JSONObject = [:]
        for (name, keyPath) in event.properties {
            if let value = source.value(at: keyPath) { properties[name] = value }
        }
        return properties
    }
}
