import CQRencode

/// A QR code symbol: a square of dark and light modules, encoded by libqrencode.
///
/// The dashboard shows a connect session's link as one, so a phone's camera can open it.
public struct QRCode: Sendable, Hashable {
    /// How much of the symbol can be damaged and still read; more costs a larger symbol.
    public enum Correction: Sendable, Hashable, CaseIterable {
        /// About 7 % of the codewords.
        case low
        /// About 15 % (the usual choice on a screen).
        case medium
        /// About 25 %.
        case quartile
        /// About 30 %.
        case high
    }

    /// The most bytes ``init(encoding:correction:)`` encodes. A version-40 symbol holds 2,953
    /// bytes at ``Correction/low``; a link of a few hundred bytes stays small enough to scan.
    public static let maximumBytes = 1024

    /// Modules per side (21 for version 1, 4 more per version, at most 177).
    public let size: Int
    /// The modules row by row, top left first: `true` is dark. `size × size` of them.
    public let modules: [Bool]

    /// A symbol from its modules (row by row, `size × size`); `nil` when the counts disagree.
    public init?(size: Int, modules: [Bool]) {
        guard size > 0, size <= 177, modules.count == size * size else { return nil }
        self.size = size
        self.modules = modules
    }

    /// Encodes `text`'s UTF-8 bytes (8-bit mode) in the smallest symbol that holds them.
    /// - Throws: ``ServerError`` `qrCode` when the text is empty or longer than ``maximumBytes``,
    ///   or when libqrencode fails.
    public init(encoding text: String, correction: Correction = .medium) throws(ServerError) {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= Self.maximumBytes else {
            throw ServerError(
                code: .qrCode, message: "a QR code holds 1 to \(Self.maximumBytes) bytes, not \(bytes.count)")
        }
        let level: QRecLevel =
            switch correction {
            case .low: QR_ECLEVEL_L
            case .medium: QR_ECLEVEL_M
            case .quartile: QR_ECLEVEL_Q
            case .high: QR_ECLEVEL_H
            }
        // Version 0: the smallest version that holds the data.
        guard let symbol = QRcode_encodeData(Int32(bytes.count), bytes, 0, level) else {
            throw ServerError(code: .qrCode, message: "libqrencode could not encode \(bytes.count) bytes")
        }
        defer { QRcode_free(symbol) }
        let width = Int(symbol.pointee.width)
        guard width > 0, width <= 177, let data = symbol.pointee.data else {
            throw ServerError(code: .qrCode, message: "libqrencode returned a symbol \(width) modules wide")
        }
        // Bit 0 of each byte is the module's colour; the others say what the module is part of.
        size = width
        modules = (0..<(width * width)).map { data[$0] & 1 == 1 }
    }

    /// Whether the module at `row`, `column` (from the top left) is dark; outside the symbol,
    /// light (the quiet zone).
    public func isDark(row: Int, column: Int) -> Bool {
        guard (0..<size).contains(row), (0..<size).contains(column) else { return false }
        return modules[row * size + column]
    }
}
