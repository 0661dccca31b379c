/// Draws a ``QRCode`` as a compact SVG image: a light square and one path of dark modules, each
/// row's run of dark modules one rectangle, framed by a quiet zone. Pure: the same symbol gives
/// the same text.
public struct QRCodeSVG: Sendable, Hashable {
    /// Light modules around the symbol (the standard asks for 4). Default 4.
    public var quietZone = 4
    /// The image's width and height attributes, in CSS pixels per module (the `viewBox` is in
    /// modules, so it scales without blurring). Default 4.
    public var pixelsPerModule = 4
    /// The image's accessible name (`aria-label`). Default "QR code".
    public var label = "QR code"

    /// Creates the default drawing settings.
    public init() {}

    /// The SVG document of `code`.
    public func svg(_ code: QRCode) -> String {
        let quiet = max(0, min(quietZone, 16))
        let side = code.size + 2 * quiet
        let pixels = side * max(1, min(pixelsPerModule, 32))
        return
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(side) \(side)\" width=\"\(pixels)\" height=\"\(pixels)\" shape-rendering=\"crispEdges\" role=\"img\" aria-label=\"\(HTML.escape(label))\">"
            + "<rect width=\"\(side)\" height=\"\(side)\" fill=\"#fff\"/>"
            + "<path fill=\"#000\" d=\"\(Self.path(code, offset: quiet))\"/></svg>"
    }

    /// The path of `code`'s dark modules, moved by `offset` modules right and down: for each
    /// horizontal run, `M<x> <y>h<length>v1h-<length>z`.
    static func path(_ code: QRCode, offset: Int) -> String {
        var path = ""
        for row in 0..<code.size {
            var column = 0
            while column < code.size {
                guard code.isDark(row: row, column: column) else {
                    column += 1
                    continue
                }
                var end = column + 1
                while end < code.size, code.isDark(row: row, column: end) { end += 1 }
                let length = end - column
                path += "M\(column + offset) \(row + offset)h\(length)v1h-\(length)z"
                column = end
            }
        }
        return path
    }
}
