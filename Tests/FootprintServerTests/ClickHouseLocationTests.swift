import FootprintServer
import Testing

/// Reading `--store clickhouse://…`: what is accepted, and hostile input refused with a message.
@Suite struct ClickHouseLocationTests {
    @Test func aFullURLGivesEveryPart() throws {
        let location = try ClickHouseLocation(
            url:
                "clickhouse://reporter:s%40cret%3A1@ch.example.com:8123/footprint?cluster=events&shards=10.0.0.1:8123,[::1]:8124"
        )
        #expect(location.node == ClickHouseLocation.Node(host: "ch.example.com", port: 8123))
        #expect(location.database == "footprint")
        #expect(location.cluster == "events")
        #expect(
            location.shards == [
                ClickHouseLocation.Node(host: "10.0.0.1", port: 8123),
                ClickHouseLocation.Node(host: "::1", port: 8124),
            ])
        #expect(location.user == "reporter")
        #expect(location.password == "s@cret:1")
        #expect(!location.description.contains("cret"))
        #expect(location.shards[1].description == "[::1]:8124")
    }

    @Test func withoutShardsTheNodeIsTheOnlyShardAndTheEnvironmentGivesTheUser() throws {
        let location = try ClickHouseLocation(
            url: "CLICKHOUSE://127.0.0.1:18123/fp_1",
            environment: ["FOOTPRINT_CLICKHOUSE_USER": "ingest", "FOOTPRINT_CLICKHOUSE_PASSWORD": "pw"])
        #expect(location.shards == [location.node])
        #expect(location.cluster == "footprint")
        #expect(location.user == "ingest")
        #expect(location.password == "pw")
        let own = try ClickHouseLocation(
            url: "clickhouse://me:mine@127.0.0.1:18123/fp_1",
            environment: ["FOOTPRINT_CLICKHOUSE_USER": "ingest"])
        #expect(own.user == "me")
        #expect(own.password == "mine")
    }

    @Test(arguments: [
        "", "clickhouse://", "http://127.0.0.1:8123/db", "clickhouse://127.0.0.1:8123",
        "clickhouse://127.0.0.1/db",
        "clickhouse://127.0.0.1:0/db", "clickhouse://127.0.0.1:65536/db", "clickhouse://127.0.0.1:-1/db",
        "clickhouse://127.0.0.1:8123/", "clickhouse://127.0.0.1:8123/1db",
        "clickhouse://127.0.0.1:8123/db;DROP",
        "clickhouse://127.0.0.1:8123/db`x", "clickhouse://127.0.0.1:8123/db/more",
        "clickhouse://host name:8123/db",
        "clickhouse://ho'st:8123/db", "clickhouse://[::1:8123/db", "clickhouse://[zz]:8123/db",
        "clickhouse://127.0.0.1:8123/db?cluster=a b", "clickhouse://127.0.0.1:8123/db?cluster=x')",
        "clickhouse://127.0.0.1:8123/db?shards=", "clickhouse://127.0.0.1:8123/db?shards=a:1,,b:2",
        "clickhouse://127.0.0.1:8123/db?shards=a:1,a:1", "clickhouse://127.0.0.1:8123/db?unknown=1",
        "clickhouse://127.0.0.1:8123/db?cluster=a&cluster=b", "clickhouse://@127.0.0.1:8123/db",
        "clickhouse://u%zz@127.0.0.1:8123/db", "clickhouse://u:%ff@127.0.0.1:8123/db",
        "clickhouse://127.0.0.1:8123/" + String(repeating: "d", count: 65),
        "clickhouse://127.0.0.1:8123/db?shards="
            + Array(repeating: "h:1", count: 65).enumerated().map { "h\($0.offset):1" }.joined(separator: ","),
        "clickhouse://127.0.0.1:8123/db?x=" + String(repeating: "y", count: 5000),
    ])
    func hostileOrMalformedURLsAreRefusedWithAMessage(url: String) {
        do {
            let location = try ClickHouseLocation(url: url)
            Issue.record("accepted \(url) as \(location)")
        } catch {
            #expect(error.code == .invalidStore)
            #expect(error.message.contains("clickhouse://[user[:password]@]HOST:PORT/DATABASE"))
            #expect(!error.message.contains("%ff"))
        }
    }

    /// `replicas=N`: the shards list every replica of each shard, one shard after the other.
    @Test func replicasGroupTheListedServersByShard() throws {
        let url =
            "clickhouse://127.0.1.11:8123/fp?cluster=footprint&replicas=2&shards=127.0.1.11:8123,127.0.1.12:8123,127.0.1.21:8123,127.0.1.22:8123"
        let location = try ClickHouseLocation(url: url)
        #expect(location.replicas == 2)
        #expect(location.isReplicated)
        #expect(
            location.replicaSets.map { $0.map(\.host) } == [
                ["127.0.1.11", "127.0.1.12"], ["127.0.1.21", "127.0.1.22"],
            ])
        #expect(location.description == url)
        #expect(try ClickHouseLocation(url: location.description) == location)
        let single = try ClickHouseLocation(url: "clickhouse://h:1/fp?replicas=1&shards=h:1,h:2")
        #expect(!single.isReplicated)
        #expect(single.replicaSets == [[single.shards[0]], [single.shards[1]]])
        #expect(!single.description.contains("replicas"))
    }

    @Test(arguments: [
        "clickhouse://h:1/db?replicas=0&shards=h:1", "clickhouse://h:1/db?replicas=9&shards=h:1",
        "clickhouse://h:1/db?replicas=two&shards=h:1,h:2", "clickhouse://h:1/db?replicas=-2&shards=h:1,h:2",
        "clickhouse://h:1/db?replicas=2", "clickhouse://h:1/db?replicas=2&shards=h:1,h:2,h:3",
        "clickhouse://h:1/db?replicas=2&replicas=2&shards=h:1,h:2",
        "clickhouse://h:1/db?replicas=99999999999999999999&shards=h:1",
    ])
    func wrongReplicasAreRefusedWithAReason(url: String) {
        do {
            let location = try ClickHouseLocation(url: url)
            Issue.record("accepted \(url) as \(location)")
        } catch {
            #expect(error.code == .invalidStore)
            #expect(error.message.contains("replicas"), "\(error.message)")
        }
    }

    @Test func isURLTellsAStoreURLFromAFile() {
        #expect(ClickHouseLocation.isURL("clickhouse://h:1/db"))
        #expect(!ClickHouseLocation.isURL("footprint.sqlite"))
    }
}
