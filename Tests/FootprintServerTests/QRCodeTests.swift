import FootprintServer
import Foundation
import Testing

@Suite struct QRCodeTests {
    static let link = "footprint-shop://footprint/connect?token=fpc_0123456789abcdef0123456789abcdef"

    /// The dark modules an SVG's path draws, as a grid of `side × side` (quiet zone included),
    /// read back from its `M x y h n v1 h-n z` runs.
    static func grid(ofSVG svg: String) throws -> (side: Int, dark: Set<[Int]>) {
        let viewBox = try #require(svg.firstRange(of: "viewBox=\"0 0 "))
        let sideText = svg[viewBox.upperBound...].prefix { $0.isNumber }
        let side = try #require(Int(sideText))
        let pathStart = try #require(svg.firstRange(of: " d=\""))
        let path = svg[pathStart.upperBound...].prefix { $0 != "\"" }
        var dark: Set<[Int]> = []
        for run in path.split(separator: "z") {
            // "M<x> <y>h<n>v1h-<n>"
            let numbers = run.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
            try #require(numbers.count == 5 && numbers[3] == 1 && numbers[4] == numbers[2], "run \(run)")
            #expect(run.hasPrefix("M") && run.contains("v1h-"), "run \(run)")
            for column in numbers[0]..<(numbers[0] + numbers[2]) {
                #expect(
                    dark.insert([numbers[1], column]).inserted,
                    "module drawn twice at \(numbers[1]), \(column)")
            }
        }
        return (side, dark)
    }

    @Test func theSVGDrawsExactlyTheLibrarysModulesInsideAQuietZone() throws {
        let code = try QRCode(encoding: Self.link)
        // A version-N symbol is 17 + 4N modules wide.
        #expect((code.size - 17) % 4 == 0 && code.size >= 21)
        let svg = QRCodeSVG().svg(code)
        let (side, dark) = try Self.grid(ofSVG: svg)
        #expect(side == code.size + 8)
        var expected: Set<[Int]> = []
        for row in 0..<code.size {
            for column in 0..<code.size where code.isDark(row: row, column: column) {
                expected.insert([row + 4, column + 4])
            }
        }
        #expect(dark == expected)
        #expect(svg.contains("width=\"\(side * 4)\""))
        // One path, however many modules.
        #expect(svg.components(separatedBy: "<path").count == 2)
        // Compact: one rectangle per run of a row (a rectangle per module, `M12 34h1v1h-1z`,
        // would cost at least 14 bytes each).
        let modules = expected.count
        #expect(
            svg.utf8.count < modules * 8,
            "\(svg.utf8.count) bytes for \(modules) dark modules of \(code.size)²")
    }

    @Test func theMatrixHasFinderPatternsInThreeCornersOnly() throws {
        let code = try QRCode(encoding: Self.link, correction: .high)
        // A finder pattern: a dark 7×7 ring, a light ring, a dark 3×3 core.
        func isFinder(row: Int, column: Int) -> Bool {
            (0..<7).allSatisfy { r in
                (0..<7).allSatisfy { c in
                    let ring = max(abs(r - 3), abs(c - 3))
                    return code.isDark(row: row + r, column: column + c) == (ring != 2)
                }
            }
        }
        let far = code.size - 7
        #expect(isFinder(row: 0, column: 0))
        #expect(isFinder(row: 0, column: far))
        #expect(isFinder(row: far, column: 0))
        #expect(!isFinder(row: far, column: far))
    }

    @Test func moreCorrectionOrMoreTextNeverShrinksTheSymbol() throws {
        let low = try QRCode(encoding: Self.link, correction: .low)
        let high = try QRCode(encoding: Self.link, correction: .high)
        let longer = try QRCode(
            encoding: Self.link + "&server=https%3A%2F%2Fcollect.example.com", correction: .low)
        #expect(high.size > low.size)
        #expect(longer.size >= low.size)
    }

    @Test(arguments: [0, QRCode.maximumBytes + 1])
    func emptyOrOverlongTextIsRefused(bytes: Int) {
        #expect(throws: ServerError.self) { try QRCode(encoding: String(repeating: "x", count: bytes)) }
    }

    /// Chromium draws the SVG, zbarimg reads the picture: the symbol carries the link.
    @Test func aScannerReadsTheLinkFromTheDrawnSVG() throws {
        let directory = NSTemporaryDirectory() + "footprint-qr-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var drawing = QRCodeSVG()
        drawing.pixelsPerModule = 6
        let svg = drawing.svg(try QRCode(encoding: Self.link))
        let page = directory + "/qr.html"
        try "<!doctype html><html><body style=\"margin:0;background:#fff\">\(svg)</body></html>"
            .write(toFile: page, atomically: true, encoding: .utf8)
        let picture = directory + "/qr.png"
        let chromium = try #require(
            ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].first {
                FileManager.default.isExecutableFile(atPath: $0)
            }, "chromium is missing: make test-deps installs it")
        let drawn = try Self.run(
            chromium,
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=400,400",
                "--user-data-dir=\(directory)/profile", "--screenshot=\(picture)", "file://\(page)",
            ])
        try #require(
            FileManager.default.fileExists(atPath: picture), "chromium drew nothing: \(drawn.output)")
        try #require(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/zbarimg"),
            "zbarimg is missing: make test-deps installs zbar-tools")
        let read = try Self.run("/usr/bin/zbarimg", ["--quiet", "--raw", picture])
        #expect(read.status == 0, "\(read.output)")
        #expect(read.output.trimmingCharacters(in: .whitespacesAndNewlines) == Self.link)
    }

    /// Runs a program to its end (a two-minute hang guard) and returns its status and standard
    /// output (kept in a file, so that no pipe can hold the wait).
    static func run(_ program: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let outputPath = NSTemporaryDirectory() + "footprint-run-\(UUID().uuidString).txt"
        try #require(FileManager.default.createFile(atPath: outputPath, contents: nil))
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(120)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        try output.close()
        return (process.terminationStatus, (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "")
    }
}
