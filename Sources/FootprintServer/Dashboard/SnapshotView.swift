import FootprintWire

/// One stored screen snapshot drawn for the Screens page, as inline SVG: the screenshot (or a
/// wireframe of the element frames when the snapshot has none) with a box over every element,
/// coloured by the element's clicks over the range (the click map).
///
/// Every text in a snapshot comes from a client and is escaped; numbers are formatted, never
/// copied. Boxes are drawn largest first, so a small element inside a large one stays on top
/// and can be hovered and clicked. Ignored elements are hatched and link nowhere.
///
/// Colour scale (documented in docs/REPORTS.md): a box with clicks gets level
/// `⌈9 × clicks ÷ most⌉` (1…9), where `most` is the clicks of the most clicked box on the
/// screen; a box without clicks gets level 0 (outline only).
struct SnapshotView {
    /// Clicks and people of one path over the range.
    struct Figures: Sendable, Hashable {
        /// `$element_click` events with the path.
        var clicks: Int
        /// Distinct people who made them.
        var people: Int
    }

    /// The snapshot.
    var snapshot: ScreenSnapshot
    /// The server's id of the stored snapshot (names its image and the define links).
    var id: String
    /// Whether the stored snapshot has a screenshot (served at ``imageURL``).
    var hasImage: Bool
    /// Figures by exact path.
    var exact: [String: Figures]
    /// Figures by similar path.
    var similar: [String: Figures]
    /// Which figures colour the boxes.
    var grouping: ElementGrouping
    /// Taps made during the open connect session, by exact path (the live view marks them).
    var taps: [String: Int] = [:]
    /// The query string the define links keep (project and range), starting with `?` or empty.
    var linkQuery: String = ""

    /// The project's name when the dashboard shows one other than the first (the image is
    /// looked up in it).
    var project: String?

    /// Where the screenshot is served.
    var imageURL: String { "/screens/image" + HTML.query([("id", id), ("project", project)]) }

    /// The colour level of `clicks` on a screen whose most clicked box has `most`: 0 without
    /// clicks, else `⌈9 × clicks ÷ most⌉` clamped to 1…9.
    static func level(clicks: Int, most: Int) -> Int {
        guard clicks > 0, most > 0 else { return 0 }
        let share = Double(min(clicks, most)) / Double(most)
        return min(9, max(1, Int((share * 9).rounded(.up))))
    }

    /// The figures of `element` under `grouping`.
    func figures(_ element: ScreenSnapshot.Element, grouping: ElementGrouping) -> Figures {
        switch grouping {
        case .exact: exact[element.path] ?? Figures(clicks: 0, people: 0)
        case .similar: similar[element.similarPath] ?? Figures(clicks: 0, people: 0)
        }
    }

    /// The `<figure>` with the screen, its boxes and the hover panel.
    var html: String {
        let width = SVGChart.format(Double(snapshot.screen.width))
        let height = SVGChart.format(Double(snapshot.screen.height))
        let drawn = snapshot.elements.enumerated().sorted { left, right in
            let leftArea = left.element.frame.width * left.element.frame.height
            let rightArea = right.element.frame.width * right.element.frame.height
            return leftArea != rightArea ? leftArea > rightArea : left.offset < right.offset
        }
        let most =
            snapshot.elements.filter { !$0.ignored }.map { figures($0, grouping: grouping).clicks }
            .max() ?? 0
        var svg =
            "<svg class=\"screen\" id=\"screen\" viewBox=\"0 0 \(width) \(height)\" width=\"\(width)\" height=\"\(height)\" role=\"img\" aria-label=\"\(HTML.escape(snapshot.page))\">"
        svg +=
            "<defs><pattern id=\"hatch\" patternUnits=\"userSpaceOnUse\" width=\"8\" height=\"8\" patternTransform=\"rotate(45)\"><line class=\"hatch\" x1=\"4\" y1=\"0\" x2=\"4\" y2=\"8\"/></pattern></defs>"
        svg += "<rect class=\"backdrop\" x=\"0\" y=\"0\" width=\"\(width)\" height=\"\(height)\"/>"
        if hasImage {
            svg +=
                "<image href=\"\(HTML.escape(imageURL))\" x=\"0\" y=\"0\" width=\"\(width)\" height=\"\(height)\" preserveAspectRatio=\"none\"/>"
        } else {
            svg += "<g class=\"wireframe\">"
            for (_, element) in drawn { svg += wire(element) }
            svg += "</g>"
        }
        svg += "<g class=\"boxes\">"
        for (index, element) in drawn { svg += box(element, index: index, most: most) }
        svg += "</g></svg>"
        let groupingName = grouping == .exact ? "exact path" : "similar path"
        let caption = [
            snapshot.page, "app \(snapshot.appVersion) (\(snapshot.build))", snapshot.deviceModel,
            "iOS \(snapshot.osVersion)", snapshot.takenAt.iso8601,
        ].map(HTML.escape).joined(separator: " · ")
        return """
            <figure class="snapshot" id="snapshot" data-snapshot="\(HTML.escape(id))" data-grouping="\(grouping.rawValue)">
            <figcaption>\(caption) <span class="hint">click map by \(groupingName), \(HTML.number(snapshot.elements.count)) elements</span></figcaption>
            <div class="snapshot-body"><div class="screen-frame">\(svg)</div>
            <aside class="element-info" id="element-info" aria-live="polite"><p class="hint">Point at a box to see its path, text, clicks and people; click it to define an event.</p></aside></div>
            \(Self.legend)
            </figure>
            """
    }

    /// The colour scale's key.
    static var legend: String {
        let steps = (0...9).map { "<span class=\"swatch m\($0)\" title=\"level \($0)\"></span>" }.joined()
        return
            "<p class=\"hint legend\">No clicks \(steps) most clicked on this screen (level ⌈9 × clicks ÷ most⌉). <span class=\"swatch ignored\"></span> ignored (never captured).</p>"
    }

    /// A wireframe shape for `element`: its outline and, when it has one, its text.
    private func wire(_ element: ScreenSnapshot.Element) -> String {
        let frame = element.frame
        var shape =
            "<rect class=\"wire \(Self.kindClass(element.kind))\" x=\"\(SVGChart.format(frame.x))\" y=\"\(SVGChart.format(frame.y))\" width=\"\(SVGChart.format(frame.width))\" height=\"\(SVGChart.format(frame.height))\" rx=\"4\"/>"
        if let text = element.text, !text.isEmpty, frame.height >= 10, frame.width >= 10 {
            let size = min(16, max(8, frame.height * 0.4))
            let characters = max(1, Int(frame.width / (size * 0.6)))
            let shown = text.count > characters ? String(text.prefix(max(1, characters - 1))) + "…" : text
            shape +=
                "<text class=\"wire-text\" x=\"\(SVGChart.format(frame.x + 6))\" y=\"\(SVGChart.format(frame.y + frame.height / 2 + size * 0.35))\" font-size=\"\(SVGChart.format(size))\">\(HTML.escape(shown))</text>"
        }
        return shape
    }

    /// The box over `element`: a link to define an event from it, with its figures as data
    /// attributes; ignored elements hatched, without a link.
    private func box(_ element: ScreenSnapshot.Element, index: Int, most: Int) -> String {
        let frame = element.frame
        let geometry =
            "x=\"\(SVGChart.format(frame.x))\" y=\"\(SVGChart.format(frame.y))\" width=\"\(SVGChart.format(frame.width))\" height=\"\(SVGChart.format(frame.height))\""
        if element.ignored {
            return
                "<rect class=\"box ignored\" \(geometry) fill=\"url(#hatch)\" data-index=\"\(index)\" data-ignored=\"1\"><title>ignored: never captured</title></rect>"
        }
        let exactFigures = figures(element, grouping: .exact)
        let similarFigures = figures(element, grouping: .similar)
        let shown = grouping == .exact ? exactFigures : similarFigures
        let level = Self.level(clicks: shown.clicks, most: most)
        let tapped = taps[element.path] ?? 0
        var attributes: [(String, String)] = [
            ("data-index", String(index)), ("data-path", element.path),
            ("data-similar-path", element.similarPath),
            ("data-kind", element.kind), ("data-text", element.text ?? ""),
            ("data-clicks", String(exactFigures.clicks)), ("data-people", String(exactFigures.people)),
            ("data-similar-clicks", String(similarFigures.clicks)),
            ("data-similar-people", String(similarFigures.people)), ("data-level", String(level)),
        ]
        if element.planned { attributes.append(("data-planned", element.planEntry ?? "1")) }
        if tapped > 0 { attributes.append(("data-taps", String(tapped))) }
        let data = attributes.map { "\($0.0)=\"\(HTML.escape($0.1))\"" }.joined(separator: " ")
        let definePath = grouping == .exact ? element.path : element.similarPath
        let link =
            "/screens/define"
            + HTML.query([
                ("snapshot", id), ("path", definePath), ("match", grouping.rawValue), ("name", element.text),
            ]) + (linkQuery.isEmpty ? "" : "&" + linkQuery.dropFirst())
        let title =
            "\(element.text ?? element.kind): \(HTML.number(shown.clicks)) clicks, \(HTML.number(shown.people)) people"
        var html =
            "<a class=\"box-link\" href=\"\(HTML.escape(link))\"><rect class=\"box m\(level)\(element.planned ? " planned" : "")\(tapped > 0 ? " tapped" : "")\" \(geometry) \(data)><title>\(HTML.escape(title))</title></rect>"
        if tapped > 0 {
            html +=
                "<circle class=\"tap\" cx=\"\(SVGChart.format(frame.x + frame.width / 2))\" cy=\"\(SVGChart.format(frame.y + frame.height / 2))\" r=\"9\"/><text class=\"tap-count\" x=\"\(SVGChart.format(frame.x + frame.width / 2))\" y=\"\(SVGChart.format(frame.y + frame.height / 2 + 4))\" text-anchor=\"middle\">\(tapped)</text>"
        }
        return html + "</a>"
    }

    /// A CSS class for an element kind (letters only; anything else is `other`).
    static func kindClass(_ kind: String) -> String {
        let letters = kind.filter { $0.isASCII && ($0.isLetter || $0 == "_") }
        return letters.isEmpty || letters.count > 32 ? "k-other" : "k-" + letters
    }

}
