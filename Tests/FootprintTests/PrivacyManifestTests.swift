import Foundation
import Testing

/// The SDK's `PrivacyInfo.xcprivacy` against its sources: every required-reason API the SDK's
/// modules call is declared with an approved reason, and nothing is declared that they do not
/// call.
struct PrivacyManifestTests {
    /// One of Apple's required-reason API categories: the names that call it and its reasons.
    struct Category: Sendable, CustomStringConvertible {
        var name: String
        /// Patterns (regular expressions) of the calls in Swift source.
        var calls: [String]
        /// The reasons Apple accepts for it.
        var reasons: Set<String>
        var description: String { name }
    }

    static let categories = [
        Category(
            name: "NSPrivacyAccessedAPICategoryUserDefaults",
            calls: [#"\bUserDefaults\b"#, #"\bNSUserDefaults\b"#],
            reasons: ["CA92.1", "1C8F.1", "C56D.1", "AC6B.1"]),
        Category(
            name: "NSPrivacyAccessedAPICategoryFileTimestamp",
            calls: [
                #"\bcreationDate\b"#, #"\bmodificationDate\b"#, #"\bfileModificationDate\b"#,
                #"\bcontentModificationDateKey\b"#, #"\bcreationDateKey\b"#, #"\bgetattrlist(bulk)?\("#,
                #"\bfgetattrlist\("#, #"\bf?stat(at)?\("#, #"\blstat\("#,
            ],
            reasons: ["DDA9.1", "C617.1", "3B52.1", "0A2A.1"]),
        Category(
            name: "NSPrivacyAccessedAPICategorySystemBootTime",
            calls: [#"\bsystemUptime\b"#, #"\bmach_absolute_time\("#],
            reasons: ["35F9.1", "8FFB.1", "3D61.1"]),
        Category(
            name: "NSPrivacyAccessedAPICategoryDiskSpace",
            calls: [
                #"\bvolumeAvailableCapacity\w*Key\b"#, #"\bvolumeTotalCapacityKey\b"#, #"\bsystemFreeSize\b"#,
                #"\bsystemSize\b"#, #"\bf?statv?fs\("#,
            ],
            reasons: ["85F4.1", "E174.1", "7D9E.1", "B728.1"]),
        Category(
            name: "NSPrivacyAccessedAPICategoryActiveKeyboards", calls: [#"\bactiveInputModes\b"#],
            reasons: ["3EC4.1", "54BD.1"]),
    ]

    /// The package's root, from this file's path.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    let manifest: [String: Any]

    init() throws {
        let data = try Data(
            contentsOf: Self.root.appendingPathComponent("Sources/Footprint/PrivacyInfo.xcprivacy"))
        manifest = try #require(
            try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
    }

    /// The Swift sources of every module the `Footprint` product ships.
    static func sdkSources() throws -> [(path: String, text: String)] {
        var sources: [(String, String)] = []
        for module in ["Footprint", "FootprintWire", "FootprintSQLite"] {
            let folder = root.appendingPathComponent("Sources/\(module)")
            let files = try #require(FileManager.default.enumerator(atPath: folder.path))
            for case let file as String in files where file.hasSuffix(".swift") {
                sources.append(
                    (
                        "\(module)/\(file)",
                        try String(contentsOfFile: folder.path + "/" + file, encoding: .utf8)
                    ))
            }
        }
        return sources
    }

    /// The files of the SDK that call `category`'s APIs.
    static func callers(of category: Category, in sources: [(path: String, text: String)]) throws -> [String]
    {
        let patterns = try category.calls.map { try NSRegularExpression(pattern: $0) }
        return sources.filter { source in
            patterns.contains { pattern in
                pattern.firstMatch(
                    in: source.text, range: NSRange(source.text.startIndex..., in: source.text)) != nil
            }
        }.map(\.path)
    }

    var declared: [String: [String]] {
        let entries = manifest["NSPrivacyAccessedAPITypes"] as? [[String: Any]] ?? []
        return Dictionary(
            entries.map {
                (
                    $0["NSPrivacyAccessedAPIType"] as? String ?? "",
                    $0["NSPrivacyAccessedAPITypeReasons"] as? [String] ?? []
                )
            }, uniquingKeysWith: +)
    }

    @Test(arguments: categories)
    func everyRequiredReasonAPITheSDKCallsIsDeclaredWithAnApprovedReason(category: Category) throws {
        let callers = try Self.callers(of: category, in: Self.sdkSources())
        let reasons = declared[category.name]
        if callers.isEmpty {
            #expect(reasons == nil, "declared but called nowhere")
        } else {
            let reasons = try #require(reasons, "called in \(callers) but not declared")
            #expect(!reasons.isEmpty)
            #expect(Set(reasons).isSubset(of: category.reasons), "reasons Apple accepts: \(category.reasons)")
        }
    }

    @Test func theScanFindsCallsWhereThereAreSome() throws {
        let sample = [
            ("Sample.swift", "let up = ProcessInfo.processInfo.systemUptime\nlet d = UserDefaults.standard")
        ]
        let found = try Self.categories.filter { try !Self.callers(of: $0, in: sample).isEmpty }.map(\.name)
        #expect(
            found == [
                "NSPrivacyAccessedAPICategoryUserDefaults", "NSPrivacyAccessedAPICategorySystemBootTime",
            ])
        let notCalls = [("Sample.swift", "try queue.state(\"opted_out\")\nlet systemSizes = 1")]
        #expect(try Self.categories.allSatisfy { try Self.callers(of: $0, in: notCalls).isEmpty })
    }

    @Test func theCollectedDataIsDeclaredForAnalyticsAndNotForTracking() throws {
        #expect(manifest["NSPrivacyTracking"] as? Bool == false)
        #expect((manifest["NSPrivacyTrackingDomains"] as? [String])?.isEmpty == true)
        let collected = try #require(manifest["NSPrivacyCollectedDataTypes"] as? [[String: Any]])
        let types = collected.compactMap { $0["NSPrivacyCollectedDataType"] as? String }
        #expect(
            Set(types) == [
                "NSPrivacyCollectedDataTypeProductInteraction", "NSPrivacyCollectedDataTypeDeviceID",
                "NSPrivacyCollectedDataTypeUserID",
            ])
        for entry in collected {
            #expect(entry["NSPrivacyCollectedDataTypeTracking"] as? Bool == false)
            #expect(entry["NSPrivacyCollectedDataTypeLinked"] as? Bool == true, "events carry the user id")
            #expect(
                entry["NSPrivacyCollectedDataTypePurposes"] as? [String] == [
                    "NSPrivacyCollectedDataTypePurposeAnalytics"
                ])
        }
    }

    /// The manifest declares no screenshots because the SDK takes them only for a connect
    /// session (docs/IOS.md): the only code that renders the screen is the snapshot describer,
    /// and the only caller of that is the connect session's screen source.
    @Test func theScreenIsRenderedOnlyForConnectSessions() throws {
        let sources = try Self.sdkSources()
        let renders = try NSRegularExpression(
            pattern: #"\bUIGraphicsImageRenderer\b|\bdrawHierarchy\(|\bsnapshotView\(|\.render\(in:"#)
        let rendering = sources.filter {
            renders.firstMatch(in: $0.text, range: NSRange($0.text.startIndex..., in: $0.text)) != nil
        }.map(\.path)
        #expect(rendering == ["Footprint/UIKit/ScreenDescriber.swift"])
        let callers = sources.filter { $0.text.contains("ScreenDescriber.capture(") }.map(\.path)
        #expect(callers == ["Footprint/UIKit/UIKitCapture.swift"])
        let uikit = try #require(sources.first { $0.path == "Footprint/UIKit/UIKitCapture.swift" }?.text)
        #expect(uikit.contains("capture.connectSession?.setScreenSource"))
    }

    @Test func theManifestIsAResourceOfTheFootprintTarget() throws {
        let package = try String(
            contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(package.contains(#"resources: [.copy("PrivacyInfo.xcprivacy")]"#))
    }
}
