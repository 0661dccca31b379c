import FootprintWire

/// Small builders for the dashboard's server-rendered HTML: escaping and numbers for people.
enum HTML {
    /// `text` safe inside elements and quoted attributes.
    static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }

    /// `1234567` → `1,234,567`.
    static func number(_ value: Int) -> String { value.grouped }

    /// `0.1234` → `12.3%`.
    static func percent(_ share: Double?) -> String {
        guard let share, share.isFinite else { return "–" }
        let tenths = Int(saturating: share * 1000)
        return "\(tenths / 10).\(tenths % 10)%"
    }

    /// A duration for people: `850 ms`, `12.4 s`, `3 min 05 s`, `2 h 10 min`.
    static func duration(milliseconds: Int?) -> String {
        guard let milliseconds else { return "–" }
        if milliseconds < 1000 { return "\(milliseconds) ms" }
        let seconds = milliseconds / 1000
        if seconds < 60 {
            let tenths = (milliseconds % 1000) / 100
            return "\(seconds).\(tenths) s"
        }
        if seconds < 3600 {
            let rest = seconds % 60
            return "\(seconds / 60) min \(rest < 10 ? "0" : "")\(rest) s"
        }
        return "\(seconds / 3600) h \((seconds % 3600) / 60) min"
    }

    /// A number with one decimal: `2.5`.
    static func decimal(_ value: Double) -> String {
        let tenths = Int(saturating: value * 10)
        return "\(tenths / 10).\(abs(tenths % 10))"
    }

    /// A table: a header row and body rows (cells already HTML); `numeric` columns align right.
    static func table(_ headers: [String], _ rows: [[String]], numeric: Set<Int> = [], id: String? = nil)
        -> String
    {
        if rows.isEmpty { return "<p class=\"empty\">No data in this range.</p>" }
        var html = "<table\(id.map { " id=\"\($0)\"" } ?? "")><thead><tr>"
        for (index, header) in headers.enumerated() {
            html += "<th\(numeric.contains(index) ? " class=\"num\"" : "")>\(escape(header))</th>"
        }
        html += "</tr></thead><tbody>"
        for row in rows {
            html += "<tr>"
            for (index, cell) in row.enumerated() {
                html += "<td\(numeric.contains(index) ? " class=\"num\"" : "")>\(cell)</td>"
            }
            html += "</tr>"
        }
        return html + "</tbody></table>"
    }

    /// A query string of the non-empty `values`, percent-encoded.
    static func query(_ values: [(String, String?)]) -> String {
        let pairs = values.compactMap { name, value -> String? in
            guard let value, !value.isEmpty else { return nil }
            return "\(name)=\(percentEncode(value))"
        }
        return pairs.isEmpty ? "" : "?" + pairs.joined(separator: "&")
    }

    /// `text` with every byte outside RFC 3986's unreserved characters percent-encoded (the
    /// same encoding connect links use).
    static func percentEncode(_ text: String) -> String {
        ConnectLinkFormat.percentEncoded(text)
    }
}
