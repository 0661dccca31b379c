/// Charts drawn on the server as inline SVG (no script, no library).
enum SVGChart {
    /// One line of a chart; its place in the chart gives its ``Mark``.
    struct Series {
        var name: String
        var values: [Int]
    }

    /// How a line is told apart from the others, also where their values are equal and one
    /// line lies on another: its colour (the CSS class `s1`, `s2`, `s3`), its dash pattern and
    /// the shape of its points, drawn the same way in the legend.
    struct Mark {
        /// The CSS class of its colour.
        var style: String
        /// The line's `stroke-dasharray`; `nil`: solid.
        var dashes: String?
        /// The shape of its points.
        var shape: Shape

        /// A point's shape. The square and the diamond are outlines larger than the filled
        /// circle, so all three stay visible on one spot.
        enum Shape {
            case circle, square, diamond
        }
    }

    /// The marks of a chart's lines, in order: solid with filled circles, dashed with squares,
    /// dotted with diamonds (a fourth line starts again).
    static let marks = [
        Mark(style: "s1", dashes: nil, shape: .circle),
        Mark(style: "s2", dashes: "8 4", shape: .square),
        Mark(style: "s3", dashes: "2 4", shape: .diamond),
    ]

    /// A line chart of daily series with a legend, y grid lines and first/last day labels; the
    /// lines are drawn in order, each with its ``Mark``.
    static func lines(_ series: [Series], labels: [String], title: String) -> String {
        let width = 720.0
        let height = 220.0
        let left = 48.0
        let bottom = 24.0
        let top = 10.0
        let count = labels.count
        let peak = max(1, series.flatMap(\.values).max() ?? 1)
        let scale = niceCeiling(peak)
        func x(_ index: Int) -> Double {
            count <= 1
                ? left + (width - left) / 2 : left + Double(index) * (width - left - 8) / Double(count - 1)
        }
        func y(_ value: Int) -> Double { top + (height - top - bottom) * (1 - Double(value) / Double(scale)) }
        var svg =
            "<svg class=\"chart\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\" aria-label=\"\(HTML.escape(title))\">"
        for step in 0...4 {
            let value = scale / 4 * step
            let lineY = format(y(value))
            svg +=
                "<line class=\"grid\" x1=\"\(Int(left))\" x2=\"\(Int(width))\" y1=\"\(lineY)\" y2=\"\(lineY)\"/>"
            svg +=
                "<text class=\"axis\" x=\"\(Int(left) - 6)\" y=\"\(lineY)\" text-anchor=\"end\" dy=\"4\">\(HTML.number(value))</text>"
        }
        if let first = labels.first, let last = labels.last {
            svg +=
                "<text class=\"axis\" x=\"\(Int(left))\" y=\"\(Int(height) - 4)\">\(HTML.escape(first))</text>"
            svg +=
                "<text class=\"axis\" x=\"\(Int(width))\" y=\"\(Int(height) - 4)\" text-anchor=\"end\">\(HTML.escape(last))</text>"
        }
        for (position, line) in series.enumerated() {
            let mark = marks[position % marks.count]
            let points = line.values.enumerated().map { "\(format(x($0.offset))),\(format(y($0.element)))" }
            svg +=
                "<polyline class=\"line \(mark.style)\"\(dashes(mark)) points=\"\(points.joined(separator: " "))\"/>"
            for (index, value) in line.values.enumerated() where count <= 62 {
                let tip =
                    "<title>\(HTML.escape(labels[index])): \(HTML.number(value)) \(HTML.escape(line.name))</title>"
                svg += point(mark, x: x(index), y: y(value), content: tip)
            }
        }
        svg += "</svg>"
        let legend = series.enumerated().map { position, line in
            let mark = marks[position % marks.count]
            let sample =
                "<svg class=\"sample\" viewBox=\"0 0 32 12\" width=\"32\" height=\"12\" aria-hidden=\"true\"><line class=\"line \(mark.style)\" x1=\"1\" y1=\"6\" x2=\"31\" y2=\"6\"\(dashes(mark))/>\(point(mark, x: 16, y: 6))</svg>"
            return "<span class=\"key \(mark.style)\">\(sample)\(HTML.escape(line.name))</span>"
        }.joined()
        return "<figure><figcaption>\(HTML.escape(title)) \(legend)</figcaption>\(svg)</figure>"
    }

    /// The `stroke-dasharray` attribute of `mark`'s line (with its leading space), or nothing.
    static func dashes(_ mark: Mark) -> String {
        mark.dashes.map { " stroke-dasharray=\"\($0)\"" } ?? ""
    }

    /// One point of `mark`'s line at (`x`, `y`), holding `content` (its tooltip).
    static func point(_ mark: Mark, x: Double, y: Double, content: String = "") -> String {
        let (name, geometry): (String, String)
        switch mark.shape {
        case .circle:
            (name, geometry) = ("circle", "cx=\"\(format(x))\" cy=\"\(format(y))\" r=\"3\"")
        case .square:
            (name, geometry) = (
                "rect", "x=\"\(format(x - 4))\" y=\"\(format(y - 4))\" width=\"8\" height=\"8\""
            )
        case .diamond:
            let corners = [(x, y - 5.5), (x + 5.5, y), (x, y + 5.5), (x - 5.5, y)]
            (name, geometry) = (
                "polygon",
                "points=\"\(corners.map { "\(format($0.0)),\(format($0.1))" }.joined(separator: " "))\""
            )
        }
        return "<\(name) class=\"dot \(mark.style)\" \(geometry)>\(content)</\(name)>"
    }

    /// Horizontal bars with labels and values (funnels, top lists).
    static func bars(_ rows: [(label: String, value: Int, note: String)], title: String) -> String {
        let peak = max(1, rows.map(\.value).max() ?? 1)
        let rowHeight = 28.0
        let width = 720.0
        let labelWidth = 220.0
        let height = Double(rows.count) * rowHeight + 8
        var svg =
            "<svg class=\"chart\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\" aria-label=\"\(HTML.escape(title))\">"
        for (index, row) in rows.enumerated() {
            let y = Double(index) * rowHeight + 4
            let barWidth = (width - labelWidth - 150) * Double(row.value) / Double(peak)
            svg +=
                "<text class=\"label\" x=\"0\" y=\"\(format(y + 17))\">\(HTML.escape(String(row.label.prefix(34))))</text>"
            svg +=
                "<rect class=\"bar\" x=\"\(Int(labelWidth))\" y=\"\(format(y + 3))\" width=\"\(format(max(1, barWidth)))\" height=\"\(Int(rowHeight - 8))\"/>"
            svg +=
                "<text class=\"value\" x=\"\(format(labelWidth + barWidth + 6))\" y=\"\(format(y + 17))\">\(HTML.number(row.value)) \(HTML.escape(row.note))</text>"
        }
        return "<figure><figcaption>\(HTML.escape(title))</figcaption>\(svg + "</svg>")</figure>"
    }

    /// A round axis maximum at or above `value`: 4, 8, 20, 40, 80, 200, … (four even steps);
    /// `Int.max` past the largest.
    static func niceCeiling(_ value: Int) -> Int {
        var magnitude = 1
        while true {
            for factor in [4, 8, 20] where factor.saturatingMultiply(magnitude) >= value {
                return factor.saturatingMultiply(magnitude)
            }
            magnitude = magnitude.saturatingMultiply(10)
        }
    }

    /// A coordinate with one decimal: `12.5`, `-0.5`.
    static func format(_ value: Double) -> String {
        let tenths = Int(saturating: (value * 10).rounded())
        let sign = tenths < 0 ? "-" : ""
        return "\(sign)\(tenths.magnitude / 10).\(tenths.magnitude % 10)"
    }
}
