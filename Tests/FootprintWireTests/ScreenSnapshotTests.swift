import FootprintWire
import Testing

struct ScreenSnapshotTests {
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0xFF, 0xD9]

    static func sample() -> ScreenSnapshot {
        ScreenSnapshot(
            connectToken: "tok_abc123", snapshotID: "0190f1d2-3c4b-7a5e-8f60-123456789abc",
            anonymousID: "anon-1",
            userID: "user-9", page: "ProductDetail", pagePath: nil, appVersion: "2.3.0", build: "45",
            osVersion: "17.4", deviceModel: "iPhone15,2", screen: .init(width: 390, height: 844, scale: 3),
            takenAt: Timestamp(iso8601: "2026-12-02T03:04:05.678Z")!, trigger: .pageAppear,
            elements: [
                .init(
                    path: "#buy:#UIButton#UIButton[0]#UIView[0]#ProductViewController#currentTitle=Buy",
                    similarPath:
                        "#buy:#UIButton#UIButton[0]#UIView[0]#ProductViewController#currentTitle=Buy",
                    kind: "button", frame: .init(x: 16, y: 700.5, width: 358, height: 44), text: "Buy",
                    planned: true, planEntry: "buy"),
                .init(
                    path: "#secret:#UITextField#UITextField[0]",
                    similarPath: "#secret:#UITextField#UITextField[0]",
                    kind: "text_field", frame: .init(x: 16, y: 100, width: 200, height: 30), ignored: true),
            ],
            image: .init(format: .jpeg, width: 1170, height: 2532, data: jpeg))
    }

    func decode(_ text: String, limits: ScreenSnapshot.Limits = .init()) throws(SnapshotError)
        -> ScreenSnapshot
    {
        try ScreenSnapshot(jsonBytes: Array(text.utf8), limits: limits)
    }

    /// The sample's JSON with `change` applied to its root object.
    func mutated(_ change: (inout JSONObject) -> Void) -> String {
        var root = Self.sample().jsonValue.objectValue!
        change(&root)
        return JSONWriter.string(.object(root))
    }

    func expectRefusal(
        _ text: String, code: SnapshotError.Code, field: String, limits: ScreenSnapshot.Limits = .init(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            let snapshot = try decode(text, limits: limits)
            Issue.record("accepted: \(snapshot.page)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.code == code, sourceLocation: sourceLocation)
            #expect(error.field == field, sourceLocation: sourceLocation)
        }
    }

    @Test func roundTripsThroughItsJSON() throws {
        let snapshot = Self.sample()
        #expect(try ScreenSnapshot(jsonBytes: snapshot.jsonBytes) == snapshot)
    }

    @Test func writesTheWireKeys() throws {
        let value = try JSONParser().parse(Self.sample().jsonBytes)
        #expect(value["connect_token"] == "tok_abc123")
        #expect(value["screen"]?["scale"]?.doubleValue == 3)
        #expect(value["trigger"] == "page_appear")
        #expect(value["elements"]?[0]?["similar_path"]?.stringValue?.hasPrefix("#buy:") == true)
        #expect(value["elements"]?[0]?["plan_entry"] == "buy")
        #expect(value["elements"]?[1]?["text"] == nil)
        #expect(value["image"]?["data"] == .string(Base64.encode(Self.jpeg)))
        #expect(value["page_path"] == nil)
    }

    @Test func readsAMinimalWireframeSnapshot() throws {
        let snapshot = try decode(
            #"""
            {"connect_token":"t","snapshot_id":"0190F1D2-3C4B-7A5E-8F60-123456789ABC","anonymous_id":"a",
             "page":"Home","app_version":"","build":"","os_version":"","device_model":"",
             "screen":{"width":390,"height":844,"scale":2},"taken_at":"2026-12-02T03:04:05Z",
             "trigger":"on_demand","elements":[],"image":null,"unknown_key":[1,2]}
            """#)
        #expect(snapshot.trigger == .onDemand)
        #expect(snapshot.image == nil)
        #expect(snapshot.elements.isEmpty)
    }

    @Test func refusesWhatIsNotAJSONObject() {
        expectRefusal("[]", code: .unreadable, field: "")
        expectRefusal("{", code: .unreadable, field: "")
        expectRefusal(String(repeating: "[", count: 50), code: .unreadable, field: "")
    }

    @Test func refusesADocumentOverItsByteLimitBeforeParsing() {
        var limits = ScreenSnapshot.Limits()
        limits.maximumDocumentBytes = 100
        expectRefusal(String(repeating: " ", count: 101), code: .documentTooLarge, field: "", limits: limits)
    }

    @Test func namesEachMissingRequiredField() {
        for key in [
            "connect_token", "snapshot_id", "anonymous_id", "page", "app_version", "build", "os_version",
            "device_model", "screen", "taken_at", "trigger", "elements",
        ] {
            expectRefusal(mutated { $0[key] = nil }, code: .missingField, field: key)
        }
    }

    @Test(arguments: [
        ("snapshot_id", JSONValue.string("not-a-uuid"), "invalid_field"),
        ("snapshot_id", .string("0190f1d2x3c4b-7a5e-8f60-123456789abc"), "invalid_field"),
        ("connect_token", .string("has space"), "invalid_field"),
        ("connect_token", .string(""), "invalid_field"),
        ("connect_token", .string(String(repeating: "t", count: 257)), "too_long"),
        ("page", .int(3), "invalid_field"),
        ("taken_at", .string("noon"), "invalid_field"),
        ("trigger", .string("timer"), "invalid_field"),
        ("elements", .object([:]), "invalid_field"),
        ("user_id", .string(""), "invalid_field"),
        ("page_path", .string(String(repeating: "#", count: 1_025)), "too_long"),
    ])
    func refusesABadTopLevelField(key: String, value: JSONValue, code: String) {
        expectRefusal(mutated { $0[key] = value }, code: SnapshotError.Code(code), field: key)
    }

    @Test(arguments: [
        ("width", 0.0, "screen.width"), ("height", 10_001, "screen.height"), ("scale", 0.5, "screen.scale"),
        ("scale", 5, "screen.scale"), ("width", -1, "screen.width"),
    ])
    func refusesAScreenOutOfRange(key: String, value: Double, field: String) {
        expectRefusal(
            mutated { root in
                var screen = root["screen"]!.objectValue!
                screen[key] = .double(value)
                root["screen"] = .object(screen)
            }, code: .outOfRange, field: field)
    }

    /// The sample's JSON with `change` applied to its first element.
    func mutatedElement(_ change: @escaping (inout JSONObject) -> Void) -> String {
        mutated { root in
            var elements = root["elements"]!.arrayValue!
            var element = elements[0].objectValue!
            change(&element)
            elements[0] = .object(element)
            root["elements"] = .array(elements)
        }
    }

    @Test func refusesBadElements() {
        expectRefusal(
            mutatedElement { $0["path"] = "buy:UIButton" }, code: .invalidField, field: "elements[0].path")
        expectRefusal(
            mutatedElement { $0["similar_path"] = .string("#" + String(repeating: "a", count: 1_024)) },
            code: .tooLong, field: "elements[0].similar_path")
        expectRefusal(
            mutatedElement { $0["kind"] = "Button" }, code: .invalidField, field: "elements[0].kind")
        expectRefusal(
            mutatedElement { $0["text"] = .string(String(repeating: "é", count: 101)) }, code: .tooLong,
            field: "elements[0].text")
        expectRefusal(mutatedElement { $0["ignored"] = 1 }, code: .invalidField, field: "elements[0].ignored")
        expectRefusal(
            mutatedElement { $0["planned"] = "yes" }, code: .invalidField, field: "elements[0].planned")
        expectRefusal(
            mutatedElement { $0["ignored"] = true }, code: .ignoredWithText, field: "elements[0].text")
        expectRefusal(mutatedElement { $0["frame"] = nil }, code: .missingField, field: "elements[0].frame")
        expectRefusal(
            mutatedElement { $0["frame"] = ["x": 0, "y": 0, "width": -1, "height": 1] }, code: .outOfRange,
            field: "elements[0].frame.width")
        expectRefusal(
            mutatedElement { $0["frame"] = ["x": 1e6, "y": 0, "width": 1, "height": 1] }, code: .outOfRange,
            field: "elements[0].frame.x")
    }

    @Test func refusesANonFiniteNumberGivenAsAValue() throws {
        var root = Self.sample().jsonValue.objectValue!
        root["screen"] = ["width": .double(.infinity), "height": 844, "scale": 3]
        #expect(
            throws: SnapshotError(
                code: .outOfRange, field: "screen.width", message: "must be a number from 1.0 to 10000.0")
        ) {
            try ScreenSnapshot(json: .object(root))
        }
    }

    @Test func refusesMoreElementsThanTheLimit() {
        var limits = ScreenSnapshot.Limits()
        limits.maximumElements = 1
        expectRefusal(
            JSONWriter.string(Self.sample().jsonValue), code: .tooManyElements, field: "elements",
            limits: limits)
    }

    /// The sample's JSON with `change` applied to its image.
    func mutatedImage(_ change: @escaping (inout JSONObject) -> Void) -> String {
        mutated { root in
            var image = root["image"]!.objectValue!
            change(&image)
            root["image"] = .object(image)
        }
    }

    @Test func refusesBadImages() {
        expectRefusal(mutatedImage { $0["format"] = "gif" }, code: .invalidField, field: "image.format")
        expectRefusal(mutatedImage { $0["width"] = 0 }, code: .outOfRange, field: "image.width")
        expectRefusal(mutatedImage { $0["height"] = 2.5 }, code: .outOfRange, field: "image.height")
        expectRefusal(mutatedImage { $0["data"] = "@@@@" }, code: .invalidImage, field: "image.data")
        expectRefusal(mutatedImage { $0["data"] = nil }, code: .missingField, field: "image.data")
        expectRefusal(mutatedImage { $0["format"] = "png" }, code: .invalidImage, field: "image.data")
        expectRefusal(
            mutatedImage { $0["data"] = .string(Base64.encode([0x47, 0x49, 0x46, 0x38])) },
            code: .invalidImage,
            field: "image.data")
    }

    @Test func refusesAnImageOverItsByteLimit() {
        var limits = ScreenSnapshot.Limits()
        limits.maximumImageBytes = 11
        expectRefusal(
            JSONWriter.string(Self.sample().jsonValue), code: .imageTooLarge, field: "image.data",
            limits: limits)
        limits.maximumImageBytes = 12
        #expect(throws: Never.self) { try decode(JSONWriter.string(Self.sample().jsonValue), limits: limits) }
    }
}
