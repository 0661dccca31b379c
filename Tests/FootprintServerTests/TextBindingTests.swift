import FootprintSQLite
import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

/// Text reaches SQLite with its byte length: a NUL inside it is part of the value, in both
/// directions. Ids and names with a NUL are refused at ingest; everything else keeps it.
struct TextBindingTests {
    static let texts = ["", "plain", "a\u{0}b", "\u{0}", "m\u{0}one", "ünï\u{0}cödé\u{0}", "end\u{0}"]

    @Test func textWithNULsIsStoredAndReadBackWhole() throws {
        try withTemporaryDatabase("text-binding") { path in
            let database = try SQLiteDatabase(path: path)
            try database.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, value TEXT NOT NULL UNIQUE)")
            let insert = try database.prepare("INSERT INTO t(value) VALUES (?1)")
            for text in Self.texts { try insert.run([.text(text)]) }
            let rows = try database.prepare(
                "SELECT value, length(CAST(value AS BLOB)), typeof(value) FROM t ORDER BY id"
            )
            .rows { ($0.text(at: 0), $0.int64(at: 1), $0.text(at: 2)) }
            #expect(rows.map(\.0) == Self.texts)
            #expect(rows.map(\.1) == Self.texts.map { Int64($0.utf8.count) })
            #expect(rows.allSatisfy { $0.2 == "text" }, "the empty text is '' and not NULL")
            let find = try database.prepare("SELECT count(*) FROM t WHERE value = ?1")
            #expect(try find.rows([.text("m")]) { $0.int64(at: 0) } == [0])
            #expect(try find.rows([.text("m\u{0}one")]) { $0.int64(at: 0) } == [1])
            #expect(try find.rows([.text("m\u{0}two")]) { $0.int64(at: 0) } == [0])
        }
    }

    /// A statement run again binds every parameter afresh: those its values leave out are NULL,
    /// not the values of the run before.
    @Test func parametersLeftOutOfARunAreNullNotThePreviousValues() throws {
        let database = try SQLiteDatabase(path: ":memory:")
        let select = try database.prepare("SELECT ?1, ?2, typeof(?3)")
        let full = try select.rows([.text("a"), .integer(2), .blob([1])]) {
            [$0.text(at: 0), $0.isNull(at: 1) ? nil : String($0.int64(at: 1)), $0.text(at: 2)]
        }
        #expect(full == [["a", "2", "blob"]])
        let shorter = try select.rows([.text("b")]) {
            [$0.text(at: 0), $0.isNull(at: 1) ? nil : String($0.int64(at: 1)), $0.text(at: 2)]
        }
        #expect(shorter == [["b", nil, "null"]])
        let again = try select.rows([.text("c"), .integer(3), .text("t")]) {
            [$0.text(at: 0), $0.isNull(at: 1) ? nil : String($0.int64(at: 1)), $0.text(at: 2)]
        }
        #expect(again == [["c", "3", "text"]])
    }

    @Test func theStoreKeepsMessagesThatDifferAfterANULApart() throws {
        try withTemporaryStore("text-binding-store") { store, project in
            let time = Timestamp(iso8601: "2026-11-29T08:00:00.000Z")!
            let events = ["m\u{0}one", "m\u{0}two"].map { id in
                EventRecord(
                    message: Message(
                        type: .track, messageId: id, anonymousId: "a\u{0}1", event: "Tapped", timestamp: time,
                        context: ["sessionId": .string("s\u{0}1")],
                        properties: ["$page_name": .string("Ho\u{0}me")]),
                    time: time, receivedAt: time)
            }
            #expect(
                try store.write(IngestBatch(projectId: project.id, events: events, receivedAt: time))
                    == WriteOutcome(stored: 2, duplicates: 0))
            #expect(
                try store.write(IngestBatch(projectId: project.id, events: events, receivedAt: time))
                    == WriteOutcome(stored: 0, duplicates: 2))
            let recent = try store.recentEvents(projectId: project.id, limit: 10, after: nil)
            #expect(Set(recent.map(\.page)) == ["Ho\u{0}me"])
            #expect(Set(recent.map(\.person)) == ["a\u{0}1"])
        }
    }

    @Test func nulsOverHTTPAreRefusedInIdsAndKeptInProperties() throws {
        let fixture = try TestServer()
        defer { fixture.shutDown() }
        let one = Payloads.track(#"m\u0000one"#)
        let two = Payloads.track(#"m\u0000two"#)
        let plain = Payloads.track("m")
        let kept =
            #"{"type":"track","messageId":"kept","anonymousId":"a","event":"Tapped","timestamp":"2026-11-29T10:00:00.000Z","context":{"sessionId":"s\u00001"},"properties":{"$page_name":"Ho\u0000me"}}"#
        let response = try fixture.client.post(
            "/v1/batch", json: Payloads.batch([one, two, plain, kept]), writeKey: fixture.writeKey)
        #expect(response.status == 200, "\(response.text)")
        let answer = try JSONParser().parse(response.body)
        #expect(answer["stored"] == 2)
        #expect(answer["duplicates"] == 0)
        let rejected = try #require(answer["rejected"]?.arrayValue)
        #expect(rejected.map { $0["index"] } == [0, 1])
        #expect(rejected.map { $0["code"] } == ["invalid_character", "invalid_character"])
        #expect(rejected.map { $0["messageId"] } == [.string("m\u{0}one"), .string("m\u{0}two")])
        var options = SQLiteDatabase.Options()
        options.readOnly = true
        let database = try SQLiteDatabase(path: fixture.directory + "/events.sqlite", options: options)
        let stored = try database.prepare("SELECT message_id, session_id, page FROM events ORDER BY id")
            .rows { [$0.text(at: 0), $0.text(at: 1), $0.text(at: 2)] }
        #expect(stored == [["m", nil, nil], ["kept", "s\u{0}1", "Ho\u{0}me"]])
    }

    @Test func aWriteKeyWithANULIsUnknownToTheStore() throws {
        try withTemporaryStore("text-binding-key") { store, project throws in
            #expect(try store.project(writeKey: project.writeKey)?.id == project.id)
            for key in [
                project.writeKey + "\u{0}", project.writeKey + "\u{0}junk", "\u{0}" + project.writeKey,
            ] {
                #expect(try store.project(writeKey: key) == nil)
            }
        }
    }

    @Test func aWriteKeyFollowedByANULAndJunkIsUnknown() throws {
        let fixture = try TestServer()
        defer { fixture.shutDown() }
        let body = Payloads.batch([Payloads.track("k-1")])
        let basic = try fixture.client.post("/v1/batch", json: body, writeKey: fixture.writeKey + "\u{0}junk")
        #expect(basic.status == 401)
        #expect(try JSONParser().parse(basic.body)["error"] == "unknown_write_key")
        let inBody = try fixture.client.post(
            "/v1/batch",
            json: Payloads.batch(
                [Payloads.track("k-2")], extra: #","writeKey":"\#(fixture.writeKey)\u0000junk""#),
            writeKey: nil)
        #expect(inBody.status == 401)
        #expect(try JSONParser().parse(inBody.body)["error"] == "unknown_write_key")
        #expect(try fixture.storedCount() == 0)
        let config = try fixture.client.send(
            "GET", "/v1/config", headers: ["Authorization": LoopbackClient.basic(fixture.writeKey + "\u{0}")])
        #expect(config.status == 401)
        // The key itself still works.
        #expect(try fixture.client.post("/v1/batch", json: body, writeKey: fixture.writeKey).status == 200)
    }
}
