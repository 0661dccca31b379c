import FootprintServer
import FootprintSynthetic
import FootprintWire
import Foundation
import Testing

/// A SQLite server (in process, on a loopback port) and the scale-out cluster (collectors behind
/// HAProxy in front of the ClickHouse shards), fed the same requests, so that every answer can be
/// compared.
final class ServerPair {
    let sqlite: TestServer
    let cluster: CollectorCluster

    init(collectors: Int = 2, sourceLocation: SourceLocation = #_sourceLocation) throws {
        cluster = try CollectorCluster(collectors: collectors, sourceLocation: sourceLocation)
        do {
            sqlite = try TestServer()
        } catch {
            cluster.shutDown()
            throw error
        }
    }

    /// A side of the pair: where to send, and its keys.
    struct Side {
        var name: String
        var client: LoopbackClient
        var writeKey: String
        var readToken: String
        var adminToken: String
    }

    var sqliteSide: Side {
        Side(
            name: "SQLite", client: sqlite.client, writeKey: sqlite.writeKey,
            readToken: sqlite.server.access.readToken, adminToken: sqlite.server.access.adminToken)
    }

    /// The cluster through HAProxy, or through one collector.
    func clusterSide(collector: Int? = nil) -> Side {
        Side(
            name: collector.map { "collector \($0 + 1)" } ?? "HAProxy",
            client: collector.map { cluster.collectors[$0].client } ?? cluster.client,
            writeKey: cluster.writeKey, readToken: cluster.readToken, adminToken: cluster.adminToken)
    }

    /// POSTs a batch body to both sides with each side's write key; expects 200 from both.
    func send(_ body: String, path: String = "/v1/batch", sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        for side in [sqliteSide, clusterSide()] {
            let response = try side.client.post(path, json: body, writeKey: side.writeKey)
            #expect(response.status == 200, "\(side.name): \(response.text)", sourceLocation: sourceLocation)
        }
    }

    /// Saves event definitions on both sides through the API.
    func define(_ definitions: [EventDefinition], sourceLocation: SourceLocation = #_sourceLocation) throws {
        for side in [sqliteSide, clusterSide()] {
            for definition in definitions {
                let response = try side.client.send(
                    "POST", "/v1/definitions", headers: ["Authorization": "Bearer \(side.adminToken)"],
                    body: Array(JSONWriter.string(definition.jsonValue).utf8))
                #expect(
                    response.status == 200, "\(side.name): \(response.text)", sourceLocation: sourceLocation)
            }
        }
    }

    /// GETs each report path from both sides and records an issue for each answer that differs.
    /// - Returns: the number of reports compared.
    @discardableResult
    func expectSameReports(_ paths: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> Int
    {
        var compared = 0
        for path in paths {
            var answers: [String] = []
            for side in [sqliteSide, clusterSide()] {
                let response = try side.client.send(
                    "GET", path, headers: ["Authorization": "Bearer \(side.readToken)"])
                #expect(
                    response.status == 200, "\(side.name) \(path): \(response.text)",
                    sourceLocation: sourceLocation)
                answers.append(JSONWriter.string(try JSONParser().parse(response.body)))
            }
            if answers[0] != answers[1] {
                Issue.record(
                    "\(path)\nSQLite:     \(answers[0].prefix(3000))\nClickHouse: \(answers[1].prefix(3000))",
                    sourceLocation: sourceLocation)
            }
            compared += 1
        }
        return compared
    }

    func shutDown() {
        cluster.shutDown()
        sqlite.shutDown()
    }

    /// Every report of the JSON API for the days `from`…`to` (yyyy-mm-dd), without a filter and
    /// with each of `filters` (query parts such as `os=iOS 18.1`): traffic, events, elements both
    /// ways, items, sessions, transitions, paths after each page, funnels over pages, events and
    /// definitions, and retention for any event and each of `events`.
    static func reportPaths(
        from: String, to: String, filters: [String], pages: [String], events: [String], definitions: [String]
    ) -> [String] {
        func encoded(_ text: String) -> String {
            var allowed = CharacterSet.urlQueryAllowed
            allowed.remove(charactersIn: "&=+ ")
            return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
        }
        let steps =
            pages.map { "page:\($0)" } + events.map { "event:\($0)" } + definitions.map { "defined:\($0)" }
        var paths: [String] = []
        for filter in [""] + filters {
            var query = "from=\(from)&to=\(to)"
            if let equals = filter.firstIndex(of: "=") {
                query += "&\(filter[..<equals])=\(encoded(String(filter[filter.index(after: equals)...])))"
            }
            paths += [
                "traffic", "events", "elements?grouping=exact", "elements?grouping=similar", "items",
                "sessions",
                "paths",
            ].map { "/v1/reports/\($0)\($0.contains("?") ? "&" : "?")\(query)" }
            paths += pages.map { "/v1/reports/paths?\(query)&from_page=\(encoded($0))" }
            for (offset, first) in steps.enumerated() {
                let second = steps[(offset + 1) % steps.count]
                let third = steps[(offset + 2) % steps.count]
                paths.append(
                    "/v1/reports/funnel?\(query)&step1=\(encoded(first))&step2=\(encoded(second))&step3=\(encoded(third))"
                )
            }
            paths.append("/v1/reports/retention?\(query)&days=7")
            paths += events.map { "/v1/reports/retention?\(query)&days=3&return_event=\(encoded($0))" }
        }
        return paths
    }
}

/// Generated traffic (``SyntheticTraffic``) as the requests an app sends: every event's message
/// and an identify message for each identity link, in batch bodies without `sentAt` (so an
/// event's time is its `timestamp` on every server).
enum HTTPTraffic {
    /// Batch bodies of at most `perBatch` messages, about `events` messages in all.
    static func batches(_ configuration: SyntheticTraffic.Configuration, events: Int, perBatch: Int = 100)
        -> [String]
    {
        var traffic = SyntheticTraffic(configuration: configuration)
        var messages: [String] = []
        while messages.count < events {
            let session = traffic.session()
            messages += session.events.map(\.payload)
            guard let first = session.events.first else { continue }
            for link in session.links {
                messages.append(
                    JSONWriter.string(
                        [
                            "type": .string("identify"), "messageId": .string("identify-\(first.messageId)"),
                            "anonymousId": .string(link.anonymousId), "userId": .string(link.userId),
                            "timestamp": .string(first.time.iso8601),
                            "context": ["sessionId": .string(first.sessionId ?? "")],
                        ] as JSONValue))
            }
        }
        return stride(from: 0, to: messages.count, by: perBatch).map { start in
            "{\"batch\":[" + messages[start..<min(messages.count, start + perBatch)].joined(separator: ",")
                + "]}"
        }
    }
}
