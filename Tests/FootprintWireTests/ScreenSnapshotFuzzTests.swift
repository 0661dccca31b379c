import FootprintWire
import Testing

/// Seeded property tests of the snapshot decoder: random valid snapshots survive the wire
/// unchanged, and random damage to a valid document is refused with a code or read as a
/// snapshot that is itself within the limits; nothing crashes.
struct ScreenSnapshotFuzzTests {
    static func text(_ random: inout SeededRandom, maximumCount: Int, alphabet: [String]) -> String {
        let count = Int.random(in: 1...maximumCount, using: &random)
        return (0..<count).map { _ in alphabet.randomElement(using: &random)! }.joined()
    }

    static let pieces = ["a", "B", "7", "#", "%", "é", "😀", "\"", "\\", "\n", " ", "[", ":"]

    static func randomSnapshot(_ random: inout SeededRandom) -> ScreenSnapshot {
        var elements: [ScreenSnapshot.Element] = []
        for _ in 0..<Int.random(in: 0...20, using: &random) {
            let path = "#" + text(&random, maximumCount: 60, alphabet: pieces)
            let ignored = Bool.random(using: &random)
            elements.append(
                .init(
                    path: path,
                    similarPath: Bool.random(using: &random) ? path : path + "#UITableViewCell[0:*]",
                    kind: ["button", "cell", "text_field", "switch"].randomElement(using: &random)!,
                    frame: .init(
                        x: Double(Int.random(in: -500...500, using: &random)) / 4,
                        y: Double.random(in: -1_000...100_000, using: &random),
                        width: Double(Int.random(in: 0...1_000, using: &random)),
                        height: Double.random(in: 0...1_000, using: &random)),
                    text: ignored
                        ? nil
                        : (Bool.random(using: &random)
                            ? text(&random, maximumCount: 40, alphabet: pieces) : nil),
                    ignored: ignored, planned: Bool.random(using: &random),
                    planEntry: Bool.random(using: &random)
                        ? "entry-\(Int.random(in: 0...99, using: &random))" : nil))
        }
        let imageBytes: [UInt8] =
            [0xFF, 0xD8, 0xFF]
            + (0..<Int.random(in: 0...300, using: &random)).map { _ in
                UInt8.random(in: 0...255, using: &random)
            }
        return ScreenSnapshot(
            connectToken: text(&random, maximumCount: 40, alphabet: ["a", "Z", "0", "_", "-", "~"]),
            snapshotID: UUIDv7.make(at: Timestamp(millisecondsSince1970: 1_795_981_800_000), using: &random),
            anonymousID: text(&random, maximumCount: 30, alphabet: pieces),
            userID: Bool.random(using: &random) ? text(&random, maximumCount: 30, alphabet: pieces) : nil,
            page: text(&random, maximumCount: 30, alphabet: pieces),
            pagePath: Bool.random(using: &random)
                ? "#" + text(&random, maximumCount: 30, alphabet: pieces) : nil,
            appVersion: "2.\(Int.random(in: 0...9, using: &random))", build: "", osVersion: "17.4",
            deviceModel: "iPhone15,2",
            screen: .init(
                width: Double.random(in: 1...2_000, using: &random),
                height: Double.random(in: 1...3_000, using: &random),
                scale: [1, 2, 3].randomElement(using: &random)!),
            takenAt: Timestamp(
                millisecondsSince1970: Int64.random(in: 0...4_000_000_000_000, using: &random)),
            trigger: Bool.random(using: &random) ? .pageAppear : .onDemand, elements: elements,
            image: Bool.random(using: &random)
                ? .init(format: .jpeg, width: 390, height: 844, data: imageBytes) : nil)
    }

    @Test(arguments: 0..<8)
    func randomSnapshotsRoundTrip(seed: Int) throws {
        var random = SeededRandom(seed: UInt64(seed) &* 7_919)
        for _ in 0..<40 {
            let snapshot = Self.randomSnapshot(&random)
            #expect(try ScreenSnapshot(jsonBytes: snapshot.jsonBytes) == snapshot)
        }
    }

    /// Whether a decoded snapshot keeps every limit it was read with.
    static func isWithinLimits(_ snapshot: ScreenSnapshot, _ limits: ScreenSnapshot.Limits) -> Bool {
        snapshot.elements.count <= limits.maximumElements
            && snapshot.elements.allSatisfy { element in
                element.path.utf8.count <= limits.maximumPathBytes && element.frame.x.isFinite
                    && abs(element.frame.x) <= limits.maximumCoordinate && element.frame.width >= 0
                    && (element.text?.utf8.count ?? 0) <= limits.maximumTextBytes
                    && !(element.ignored && element.text != nil)
            }
            && limits.scaleRange.contains(snapshot.screen.scale)
            && (snapshot.image?.data.count ?? 0) <= limits.maximumImageBytes
    }

    @Test(arguments: 0..<8)
    func damagedDocumentsNeverCrashTheDecoder(seed: Int) {
        var random = SeededRandom(seed: 0xF00D &+ UInt64(seed))
        var limits = ScreenSnapshot.Limits()
        limits.maximumElements = 15
        limits.maximumImageBytes = 200
        let interesting: [UInt8] = Array(#"{}[]",:0-9e.E+"\ntruefalsenull#"#.utf8) + [0x00, 0x80, 0xC3, 0xFF]
        var refused = 0
        for _ in 0..<150 {
            var bytes = Self.randomSnapshot(&random).jsonBytes
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                guard !bytes.isEmpty else { break }
                let index = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<4, using: &random) {
                case 0: bytes[index] = interesting.randomElement(using: &random)!
                case 1: bytes.remove(at: index)
                case 2: bytes.insert(interesting.randomElement(using: &random)!, at: index)
                default: bytes.removeSubrange(index...)
                }
            }
            do {
                let snapshot = try ScreenSnapshot(jsonBytes: bytes, limits: limits)
                #expect(Self.isWithinLimits(snapshot, limits))
                #expect(try ScreenSnapshot(jsonBytes: snapshot.jsonBytes, limits: limits) == snapshot)
            } catch {
                refused += 1
                #expect(!error.code.name.isEmpty)
            }
        }
        // Most damage must be noticed; a decoder that accepted everything would fail here.
        #expect(refused > 75)
    }

    @Test(arguments: 0..<4)
    func randomJSONValuesAreRefusedWithACode(seed: Int) {
        var random = SeededRandom(seed: 0xBEEF &+ UInt64(seed))
        func value(depth: Int) -> JSONValue {
            switch Int.random(in: 0..<(depth > 3 ? 5 : 7), using: &random) {
            case 0: return .null
            case 1: return .bool(Bool.random(using: &random))
            case 2: return .int(Int64.random(in: .min ... .max, using: &random))
            case 3: return .double(Double(bitPattern: random.next()))
            case 4: return .string(Self.text(&random, maximumCount: 8, alphabet: Self.pieces))
            case 5:
                return .array(
                    (0..<Int.random(in: 0...4, using: &random)).map { _ in value(depth: depth + 1) })
            default:
                let keys = [
                    "connect_token", "snapshot_id", "screen", "elements", "image", "frame", "x", "data",
                ]
                var object: JSONObject = [:]
                for _ in 0..<Int.random(in: 0...6, using: &random) {
                    object[keys.randomElement(using: &random)!] = value(depth: depth + 1)
                }
                return .object(object)
            }
        }
        for _ in 0..<300 {
            #expect(throws: SnapshotError.self) { try ScreenSnapshot(json: value(depth: 0)) }
        }
    }
}
