// swift-tools-version:6.0
import Foundation
import PackageDescription

let package = Package(
    name: "Footprint",
    // The SDK runs on iOS (its UIKit and SwiftUI layer) and macOS (the core); the server on macOS and Linux.
    platforms: [.iOS(.v15), .macOS(.v13)],
    products: [
        .library(name: "Footprint", targets: ["Footprint"]),
        .library(name: "FootprintWire", targets: ["FootprintWire"]),
        .executable(name: "footprint", targets: ["footprint"]),
    ],
    targets: [
        // C libraries from the operating system.
        .systemLibrary(
            name: "CSQLite",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .systemLibrary(
            name: "CZlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"]), .brew(["libmicrohttpd"])]
        ),
        // libqrencode: the QR code of a connect session's link, drawn by the server as SVG.
        .systemLibrary(
            name: "CQRencode",
            pkgConfig: "libqrencode",
            providers: [.apt(["libqrencode-dev"]), .brew(["qrencode"])]
        ),
        // libpq: the metadata store on PostgreSQL (projects, keys, config, tokens, sessions).
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]
        ),
        // OpenSSL's libcrypto: the server hashes its tokens and dashboard sessions with it.
        .systemLibrary(
            name: "CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),

        // Shared by the SDK and the server.
        .target(
            name: "FootprintWire",
            dependencies: ["CZlib"],
            linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]
        ),
        .target(name: "FootprintSQLite", dependencies: ["CSQLite"]),

        // The SDK that apps import.
        .target(
            name: "Footprint", dependencies: ["FootprintWire", "FootprintSQLite"],
            resources: [.copy("PrivacyInfo.xcprivacy")]
        ),

        // Simulated scrolling, layouts and a settable clock: the demo, the benchmarks and the tests
        // drive the SDK's core with them; apps never link it.
        .target(name: "FootprintSimulation", dependencies: ["Footprint", "FootprintWire"]),

        // The server and its command-line front end.
        .target(
            name: "FootprintServer",
            dependencies: [
                "FootprintWire", "FootprintSQLite", "CMicroHTTPD", "CCrypto", "CQRencode", "CLibPQ", "CZlib",
            ]
        ),
        // Plausible synthetic traffic (`footprint generate`, the benchmarks, the tests).
        .target(name: "FootprintSynthetic", dependencies: ["FootprintServer", "FootprintWire"]),
        // The fuzz entry points: what `make fuzz` and the corpus replay run on client bytes.
        .target(name: "FootprintFuzzing", dependencies: ["FootprintServer", "FootprintWire"]),
        .executableTarget(
            name: "footprint",
            dependencies: [
                "Footprint", "FootprintServer", "FootprintDemo", "FootprintSynthetic", "FootprintCommandLine",
            ]),
        // The command line's grammar: arguments, options, what a typo meant, progress lines.
        .target(name: "FootprintCommandLine", dependencies: ["FootprintWire"]),
        // `footprint demo`: virtual users of a sample shop app, through the real SDK and server.
        .target(
            name: "FootprintDemo", dependencies: ["Footprint", "FootprintServer", "FootprintSimulation"]),
        // A minimal HTTP/1.1 receiver on a loopback socket, for delivery tests and benchmarks
        // (not shipped in any product).
        .target(name: "FootprintLoopback", dependencies: ["Footprint"]),
        // Used only by the queue's kill test (SIGKILL mid-stream).
        .executableTarget(name: "FootprintQueueProbe", dependencies: ["Footprint"]),
        .executableTarget(
            name: "FootprintBenchmarks",
            dependencies: [
                "Footprint", "FootprintServer", "FootprintWire", "FootprintSQLite", "FootprintLoopback",
                "FootprintSimulation", "FootprintSynthetic",
            ]
        ),

        .testTarget(name: "FootprintWireTests", dependencies: ["FootprintWire"]),
        .testTarget(
            name: "FootprintTests",
            dependencies: [
                "Footprint", "FootprintWire", "FootprintSQLite", "FootprintLoopback", "FootprintSimulation",
            ],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "FootprintServerTests",
            dependencies: [
                "FootprintServer", "Footprint", "FootprintWire", "FootprintSQLite", "FootprintDemo",
                "FootprintSimulation", "FootprintSynthetic", "FootprintFuzzing", "FootprintCommandLine",
            ]
        ),
        // The UIKit and SwiftUI adapter's tests: they run on an iOS simulator (empty elsewhere).
        .testTarget(name: "FootprintUIKitTests", dependencies: ["Footprint"]),
    ]
)

// `FOOTPRINT_SDK_ONLY=1` leaves out the server and the command-line tools, which need
// libmicrohttpd, libcrypto and libqrencode, so that the SDK and its tests build for iOS (the simulator job in CI).
if ProcessInfo.processInfo.environment["FOOTPRINT_SDK_ONLY"] != nil {
    let serverTargets: Set<String> = [
        "CMicroHTTPD", "CCrypto", "CQRencode", "CLibPQ", "FootprintServer", "FootprintDemo", "footprint",
        "FootprintCommandLine", "FootprintBenchmarks", "FootprintSynthetic", "FootprintFuzzing",
        "FootprintServerTests",
    ]
    package.targets.removeAll { serverTargets.contains($0.name) }
    package.products.removeAll { $0.name == "footprint" }
}

// `FOOTPRINT_FUZZ=1` adds the libFuzzer target that `make fuzz` builds with `-sanitize=fuzzer`
// (it calls libFuzzer's driver, so it cannot link in an ordinary build).
if ProcessInfo.processInfo.environment["FOOTPRINT_FUZZ"] != nil {
    package.targets += [
        .systemLibrary(name: "CLibFuzzer"),
        .executableTarget(name: "FootprintFuzzer", dependencies: ["CLibFuzzer", "FootprintFuzzing"]),
    ]
}

for target in package.targets where target.type != .system {
    var settings = target.swiftSettings ?? []
    settings.append(.swiftLanguageMode(.v6))
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    target.swiftSettings = settings
}
