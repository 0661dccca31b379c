/// Charts drawn on the server as inline SVG (no script, no library).
enum SVGChart {
    /// One line of a chart.
    struct Series {
        var name: String
        var values: [Int]
        /// A CSS class for its colour: `s1`, `s2`, `s3`.
        var style: String
    }

    /// A line chart of daily series with a legend, y grid lines and first/last day labels.
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
        for line in series {
            let points = line.values.enumerated().map { "\(format(x($0.offset))),\(format(y($0.element)))" }
            svg += "<polyline class=\"line \(line.style)\" points=\"\(points.joined(separator: " "))\"/>"
            for (index, value) in line.values.enumerated() where count <= 62 {
                svg +=
                    "<circle class=\"dot \(line.style)\" cx=\"\(format(x(index)))\" cy=\"\(format(y(value)))\" r=\"2.5\"><title>\(HTML.escape(labels[index])): \(HTML.number(value)) \(HTML.escape(line.name))</title></circle>"
            }
        }
        svg += "</svg>"
        let legend = series.map { "<span class=\"key \($0.style)\">\(HTML.escape($0.name))</span>" }.joined()
        return "<figure><figcaption>\(HTML.escape(title)) \(legend)</figcaption>\(svg)</figure>"
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
