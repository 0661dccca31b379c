import FootprintFuzzing
import FootprintServer
import Foundation
import Testing

/// Replays the fuzzing corpus (`Tests/Fuzz/corpus`, seeds from the Segment spec's examples and
/// edge cases) and every input the fuzzer has found to crash the server (`Tests/Fuzz/crashes`)
/// through ``FuzzEntry``, the function `make fuzz` runs. A crash input stays in the folder after
/// its fix, so that it keeps passing.
struct FuzzCorpusTests {
    /// The files of `Tests/Fuzz/corpus/<target>` and `Tests/Fuzz/crashes/<target>`, by name.
    static func inputs(_ target: String) -> [String] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz")
        return ["corpus", "crashes"].flatMap { folder -> [String] in
            let directory = root.appendingPathComponent(folder).appendingPathComponent(target)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            return names.filter { !$0.hasPrefix(".") }.sorted().map {
                directory.appendingPathComponent($0).path
            }
        }
    }

    static func bytes(_ path: String) throws -> [UInt8] {
        Array(try #require(FileManager.default.contents(atPath: path), "cannot read \(path)"))
    }

    @Test func theCorpusHoldsTheSpecExamplesOfEveryMessageType() {
        let names = Self.inputs("ingest").map { URL(fileURLWithPath: $0).lastPathComponent }
        for type in ["track", "screen", "page", "identify", "alias", "group", "batch"] {
            #expect(names.contains("spec-\(type).json"), "no seed spec-\(type).json")
        }
        #expect(Self.inputs("reports").count >= 10)
        #expect(Self.inputs("snapshots").filter { $0.contains("/valid-") }.count >= 4)
        #expect(Self.inputs("targets").count >= 10)
    }

    @Test(arguments: inputs("targets"))
    func requestTargetIsReadExactlyOrRefusedWithoutCrashing(_ path: String) throws {
        let target = FuzzEntry.requestTarget(try Self.bytes(path))
        let name = URL(fileURLWithPath: path).lastPathComponent
        if name.hasPrefix("valid-") {
            #expect(target != nil, "\(name) refused")
        } else if name.hasPrefix("refused-") {
            #expect(target == nil, "\(name) accepted: \(String(describing: target))")
        }
    }

    @Test(arguments: inputs("ingest"))
    func ingestInputIsDecodedOrRefusedWithoutCrashing(_ path: String) throws {
        let outcome = FuzzEntry.ingest(try Self.bytes(path))
        let name = URL(fileURLWithPath: path).lastPathComponent
        // The spec's own examples are accepted whole.
        if name.hasPrefix("spec-") || name.hasPrefix("footprint-") {
            #expect(outcome.status == 200)
            #expect(outcome.accepted > 0)
            #expect(outcome.rejected == 0)
        } else {
            #expect([200, 400, 413].contains(outcome.status))
        }
    }

    @Test(arguments: inputs("reports"))
    func reportQueryIsReadOrRefusedWithoutCrashing(_ path: String) throws {
        let range = FuzzEntry.reportParameters(try Self.bytes(path))
        let name = URL(fileURLWithPath: path).lastPathComponent
        if !name.hasPrefix("edge-") && path.contains("/corpus/") {
            let read = try #require(range, "a valid query refused")
            #expect(read.fromDay <= read.toDay)
        }
    }

    @Test(arguments: inputs("snapshots"))
    func snapshotUploadIsKeptOrRefusedWithoutCrashing(_ path: String) throws {
        let status = FuzzEntry.snapshot(try Self.bytes(path))
        let name = URL(fileURLWithPath: path).lastPathComponent
        if name.hasPrefix("valid-") {
            #expect(status == 201)
        } else if name.hasPrefix("edge-") {
            #expect([400, 403, 413].contains(status), "\(name): \(status)")
        } else {
            #expect([201, 400, 403, 413].contains(status), "\(name): \(status)")
        }
    }

    @Test func refusedQueriesAreRefusedAndRangesAreRead() {
        #expect(FuzzEntry.reportParameters(Array("from=2026-11-29&to=2026-11-01".utf8)) == nil)
        let range = FuzzEntry.reportParameters(Array("from=2026-11-01&to=2026-11-29".utf8))
        #expect(range?.fromDay == "2026-11-01")
        #expect(range?.toDay == "2026-11-29")
    }
}
