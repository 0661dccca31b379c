import FootprintLoopback
import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

/// `footprint keys`: a key rotated on the file a running server serves (another process) is
/// refused by it within its cache interval; the same command on the PostgreSQL metadata.
extension CommandLineTests {
    /// The write keys `footprint keys list --json` prints.
    func listedKeys(_ store: [String]) throws -> [WriteKey] {
        let listed = try run(["keys", "list", "--json"] + store)
        #expect(listed.status == 0, "\(listed.error)")
        return try JSONDecoder().decode([WriteKey].self, from: Data(listed.output.utf8))
    }

    @Test func aKeyRevokedByTheCommandIsRefusedByTheRunningServerWithinASecond() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = directory + "/keys.sqlite"
        let server = try ServeProcess(executable: executable, database: database)
        defer { server.stop() }
        let store = ["--db", database]

        let created = try run(["keys", "create", "--project", "default", "--json"] + store)
        #expect(created.status == 0, "\(created.error)")
        let successor = try JSONDecoder().decode(WriteKey.self, from: Data(created.output.utf8))
        #expect(try listedKeys(store).map(\.key).sorted() == [server.writeKey, successor.key].sorted())
        // A new key works at once (a key the cache lacks is checked against the file).
        let batch = { (id: String) in Payloads.batch([Payloads.track(id)]) }
        #expect(
            try server.client.post("/v1/batch", json: batch("new"), writeKey: successor.key).status == 200)

        let revoked = try run(["keys", "revoke", server.writeKey] + store)
        #expect(revoked.status == 0 && revoked.output.contains("Revoked write key"), "\(revoked.error)")
        let revokedAt = Date()
        var attempt = 0
        let seen = try StalenessProbe(bound: 1.05).measure(since: revokedAt) {
            attempt += 1
            return try server.client.post(
                "/v1/batch", json: batch("old-\(attempt)"), writeKey: server.writeKey
            )
            .status == 401
        }
        #expect(
            try server.client.post("/v1/batch", json: batch("after"), writeKey: successor.key).status == 200)
        print("a revoked key was refused by the server \(seen) s after footprint keys revoke")

        // The project's last key stays; an unknown key is a usage error.
        let last = try run(["keys", "revoke", successor.key] + store)
        #expect(last.status == 1 && last.error.contains("only write key"), "\(last.error)")
        #expect(try run(["keys", "revoke", "fp_unknown"] + store).status == 64)
        #expect(try listedKeys(store).map(\.key) == [successor.key])
    }

    @Test(.enabled(if: PostgresTesting.isAvailable, PostgresTesting.reason))
    func keysAreManagedInThePostgreSQLMetadataToo() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let postgres = try PostgresTesting.newDatabase()
        defer { PostgresTesting.dropDatabase(postgres) }
        let collector = try PostgresMetadataStore(location: postgres)
        defer { collector.close() }
        let shop = try collector.createProject(named: "shop")
        let meta = ["--meta", "postgres://\(postgres.user)@\(postgres.node)/\(postgres.database)"]

        let created = try run(["keys", "create", "--project", "shop", "--json"] + meta)
        #expect(created.status == 0, "\(created.error)")
        let successor = try JSONDecoder().decode(WriteKey.self, from: Data(created.output.utf8))
        #expect(try collector.project(writeKey: successor.key)?.id == shop.id)
        #expect(
            try listedKeys(meta + ["--project", "shop"]).map(\.key).sorted()
                == [shop.writeKey, successor.key].sorted())
        #expect(try run(["keys", "revoke", shop.writeKey] + meta).status == 0)
        try StalenessProbe(bound: 1.05).measure(since: Date()) {
            try collector.project(writeKey: shop.writeKey) == nil
        }
        #expect(try collector.writeKeys(projectId: shop.id).map(\.key) == [successor.key])
        #expect(try run(["keys", "list", "--db", "x.sqlite"] + meta).status == 64)
    }

    @Test(.enabled(if: PostgresTesting.isAvailable, PostgresTesting.reason))
    func migrateCopiesTheMetadataOnceAndRefusesAnotherDeploymentsDatabase() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = directory + "/meta.sqlite"
        let created = try run(["projects", "create", "shop", "--db", database, "--json"])
        #expect(created.status == 0, "\(created.error)")
        let shop = try JSONDecoder().decode(Project.self, from: Data(created.output.utf8))
        let postgres = try PostgresTesting.newDatabase()
        let other = try PostgresTesting.newDatabase()
        defer {
            PostgresTesting.dropDatabase(postgres)
            PostgresTesting.dropDatabase(other)
        }
        let url = { (location: PostgresLocation) in
            "postgres://\(location.user)@\(location.node)/\(location.database)"
        }

        let copied = try run(["migrate", "--from", database, "--meta", url(postgres)])
        #expect(copied.status == 0, "\(copied.error)")
        #expect(copied.output.contains("copied 0 of "), "\(copied.output)")
        #expect(
            copied.output.contains("Copied the metadata of \(database) to \(postgres)"), "\(copied.output)")
        let again = try run(["migrate", "--from", database, "--meta", url(postgres)])
        #expect(
            again.status == 0 && again.output.contains("nothing to copy"), "\(again.output) \(again.error)")
        let target = try PostgresMetadataStore(location: postgres)
        defer { target.close() }
        #expect(try target.projects() == [shop])

        // A database where a collector already made its own project 1.
        let theirs = try PostgresMetadataStore(location: other)
        _ = try theirs.createProject(named: "default")
        theirs.close()
        let refused = try run(["migrate", "--from", database, "--meta", url(other)])
        #expect(refused.status == 1 && refused.error.contains("refusing to merge"), "\(refused.error)")
        #expect(try run(["migrate", "--from", database]).status == 64)
        #expect(try run(["migrate", "--from", database, "--to", url(other)]).error.contains("--meta"))
    }

    /// `projects` and `tokens` work on the PostgreSQL metadata of a ClickHouse deployment, as
    /// `keys` does; `projects list` counts events where they are, so it needs `--store` there.
    @Test(.enabled(if: PostgresTesting.isAvailable, PostgresTesting.reason))
    func projectsAndTokensAreManagedInThePostgreSQLMetadataToo() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let postgres = try PostgresTesting.newDatabase()
        defer { PostgresTesting.dropDatabase(postgres) }
        let collector = try PostgresMetadataStore(location: postgres)
        defer { collector.close() }
        let meta = ["--meta", "postgres://\(postgres.user)@\(postgres.node)/\(postgres.database)"]

        let created = try run(["projects", "create", "shop", "--json"] + meta)
        #expect(created.status == 0, "\(created.error)")
        let shop = try #require(try collector.project(named: "shop"))
        #expect(created.output.contains(shop.writeKey))
        #expect(try run(["projects", "set", "shop", "--retention-days", "30"] + meta).status == 0)
        #expect(try collector.retentionDays(projectId: shop.id) == 30)

        let token = try run(["tokens", "create", "--project", "shop", "--json"] + meta)
        #expect(token.status == 0, "\(token.error)")
        let made = try JSONDecoder().decode(ProjectToken.self, from: Data(token.output.utf8))
        // The project's first read token (made with it) and this one.
        let listed = try run(["tokens", "list", "--json"] + meta)
        let tokens = try JSONDecoder().decode([ProjectToken].self, from: Data(listed.output.utf8))
        #expect(tokens.count == 2 && tokens.contains(made))
        #expect(try run(["tokens", "revoke", String(made.id)] + meta).status == 0)
        #expect(try collector.readTokens().map(\.id) == tokens.filter { $0 != made }.map(\.id))
        #expect(try run(["tokens", "signout"] + meta).output.contains("Ended 0 dashboard sessions"))

        // The counts of events are in ClickHouse: without --store, a usage error saying so.
        let counts = try run(["projects", "list"] + meta)
        #expect(counts.status == 64 && counts.error.contains("--store clickhouse://"), "\(counts.error)")
        #expect(try run(["tokens", "list", "--db", "x.sqlite"] + meta).status == 64)
    }
}
