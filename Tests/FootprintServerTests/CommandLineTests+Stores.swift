import FootprintLoopback
import FootprintServer
import FootprintWire
import Foundation
import Testing

/// Database files as `footprint` names and opens them: one syntax for a store everywhere, what is
/// wrong with a path said plainly, nothing created before the port is bound, and one server per
/// file.
extension CommandLineTests {
    @Test(arguments: [
        (["serve", "--port", "0", "--db"], "the folder /no/such/folder does not exist"),
        (["projects", "create", "shop", "--db"], "the folder /no/such/folder does not exist"),
        // Commands that read an existing file only say there is none.
        (["report", "--db"], "no database at /no/such/folder/x.sqlite"),
        (
            ["backup", "--to", "/tmp/footprint-never.sqlite", "--db"],
            "no database at /no/such/folder/x.sqlite"
        ),
    ])
    func aMissingFolderIsNamed(_ arguments: [String], _ says: String) throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try run(arguments + ["/no/such/folder/x.sqlite"])
        #expect(result.status != 0)
        #expect(result.error.contains(says), "\(result.error)")
        #expect(!result.error.contains("SQLite error 14"))
    }

    @Test(arguments: [
        ["serve", "--port", "0"], ["projects", "create", "shop"], ["report"], ["tokens", "list"],
    ])
    func aFolderIsNotADatabase(_ arguments: [String]) throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try run(arguments + ["--db", directory])
        #expect(result.status != 0)
        #expect(result.error.contains("\(directory) is a folder"), "\(result.error)")
        #expect(!result.error.contains("SQLite error 14"))
    }

    /// A port in use fails before the database is made, and says which flag to change.
    @Test func aPortInUseCreatesNoDatabase() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try ServeProcess(executable: executable, database: directory + "/first.sqlite")
        defer { first.stop() }
        let database = directory + "/second.sqlite"
        let result = try run(["serve", "--db", database, "--port", String(first.port)])
        #expect(result.status == 1)
        #expect(result.error.contains("cannot listen on 127.0.0.1:\(first.port)"), "\(result.error)")
        #expect(result.error.contains("use --port"))
        let left = try FileManager.default.contentsOfDirectory(atPath: directory).filter {
            $0.hasPrefix("second")
        }
        #expect(left.isEmpty, "\(left)")
    }

    /// `--db PATH` and `--db sqlite:PATH` are the same file wherever a store is named, and so is
    /// `--store sqlite:PATH`; `migrate --from` takes a bare path too.
    @Test func aSQLiteStoreIsNamedTheSameWayEverywhere() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/named.sqlite"
        let created = try run(["projects", "create", "shop", "--db", "sqlite:" + path])
        #expect(created.status == 0, "\(created.error)")
        #expect(FileManager.default.fileExists(atPath: path))
        for arguments in [
            ["report", "--db", path, "--json"], ["report", "--db", "sqlite:" + path, "--json"],
            ["report", "--store", "sqlite:" + path, "--json"],
            ["report", "--db", path, "--store", "sqlite:" + path, "--json"],
        ] {
            let report = try run(arguments)
            #expect(report.status == 0, "\(arguments): \(report.error)")
            #expect(try JSONDecoder().decode(Report.self, from: Data(report.output.utf8)).project == "shop")
        }
        #expect(try run(["projects", "list", "--db", "sqlite:" + path]).output.contains("shop"))
        let copy = try run([
            "backup", "--db", "sqlite:" + path, "--to", "sqlite:" + directory + "/copy.sqlite",
        ])
        #expect(copy.status == 0, "\(copy.error)")
        #expect(FileManager.default.fileExists(atPath: directory + "/copy.sqlite"))
        // migrate reads its source either way; the target must be ClickHouse.
        for source in [path, "sqlite:" + path] {
            let migrate = try run([
                "migrate", "--from", source, "--to", "sqlite:" + directory + "/other.sqlite",
            ])
            #expect(migrate.status == 64)
            #expect(migrate.error.contains("--to must be clickhouse://"), "\(migrate.error)")
        }
        let differ = try run(["report", "--db", path, "--store", "sqlite:" + directory + "/other.sqlite"])
        #expect(differ.status == 64)
        #expect(differ.error.contains("differ"))
        let clickHouseAsFile = try run(["report", "--db", "clickhouse://127.0.0.1:8123/footprint"])
        #expect(clickHouseAsFile.status == 64)
        #expect(clickHouseAsFile.error.contains("--store"), "\(clickHouseAsFile.error)")
    }

    /// One server per file: a second `serve` of a SQLite store is refused, and so is a collector
    /// (`--store`) or a migration on it, while the tools the README runs beside a server work.
    @Test func aSecondServerOfTheFileIsRefusedAndTheToolsStillWork() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = directory + "/served.sqlite"
        let server = try ServeProcess(executable: executable, database: database)
        defer { server.stop() }

        let second = try run(["serve", "--db", database, "--port", "0"])
        #expect(second.status == 1)
        #expect(second.error.contains("already serves \(database)"), "\(second.error)")
        #expect(second.error.contains("process \(server.pid)"))
        let collector = try run(
            [
                "serve", "--db", "sqlite:" + database, "--port", "0", "--store",
                "clickhouse://127.0.0.1:1/events",
            ])
        #expect(collector.status == 1)
        #expect(collector.error.contains("with its events in SQLite"), "\(collector.error)")
        let migrate = try run(["migrate", "--from", database, "--to", "clickhouse://127.0.0.1:1/events"])
        #expect(migrate.status == 1)
        #expect(migrate.error.contains("with its events in SQLite"), "\(migrate.error)")

        #expect(try server.client.send("GET", "/health").status == 200)
        let backup = try run(["backup", "--db", database, "--to", directory + "/copy.sqlite"])
        #expect(backup.status == 0, "\(backup.error)")
        #expect(try run(["report", "--db", database]).status == 0)
        #expect(try run(["projects", "list", "--db", database]).status == 0)
        let token = try run(["tokens", "create", "--project", "default", "--db", database])
        #expect(token.status == 0, "\(token.error)")

        // Once it stops, the file is free again.
        server.stop()
        let again = try ServeProcess(executable: executable, database: database)
        again.stop()
    }

    /// A file that became a ClickHouse store's metadata file (after `migrate` or `serve --store`)
    /// is not served, reported on or filled as a SQLite event store: the refusal names the store.
    @Test func aClickHouseStoresMetadataFileIsNotServedAsSQLite() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = directory + "/meta.sqlite"
        let location = try ClickHouseLocation(
            url: "clickhouse://127.0.0.1:8123/shop?shards=127.0.0.1:8123,127.0.0.1:8124")
        do {
            let store = try SQLiteEventStore(path: database)
            defer { store.close() }
            _ = try store.createProject(named: "shop")
            #expect(try store.eventStoreLocation() == nil)
            try store.recordEventStore(location, at: SystemClock().now())
            #expect(try store.eventStoreLocation() == location.description)
        }
        for arguments in [
            ["serve", "--db", database, "--port", "0"], ["report", "--db", database],
            ["generate", "--events", "10", "--db", database],
            ["people", "export", "user-1", "--db", database],
        ] {
            let result = try run(arguments)
            #expect(result.status == 1, "\(arguments)")
            #expect(
                result.error.contains("metadata file of the ClickHouse store \(location)"), "\(result.error)")
            #expect(result.error.contains("--store"))
            #expect(!result.output.contains("listening"))
        }
        // Its projects, keys and tokens are still managed from the file; the list counts no
        // events there, naming the store that has them.
        let listed = try run(["projects", "list", "--db", database])
        #expect(listed.status == 0 && listed.output.contains("shop"), "\(listed.error)")
        #expect(listed.error.contains("give --store \(location) to count them"), "\(listed.error)")
    }
}
