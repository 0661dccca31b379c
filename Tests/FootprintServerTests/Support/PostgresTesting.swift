import Foundation
import Testing

@testable import FootprintServer

/// The PostgreSQL server the PostgreSQL suites run against, and databases on it.
///
/// With `FOOTPRINT_POSTGRES_URL` (`postgres://USER[:PASSWORD]@HOST:PORT/DATABASE`, a user that
/// may create databases) the tests use that running server. Otherwise they start their own from
/// Debian's binaries (`FOOTPRINT_POSTGRES_BIN`, default `/usr/lib/postgresql/15/bin`): `initdb`
/// into a temporary folder and `pg_ctl start` on 127.0.0.1 at a free port, stopped when the
/// test process exits. As root (CI), both run as the `postgres` user (else `nobody`) through
/// `runuser`, since PostgreSQL refuses to run as root. Without a URL or the binaries the suites
/// are skipped, unless `FOOTPRINT_REQUIRE_POSTGRES=1`: then they run and fail.
enum PostgresTesting {
    static let environment = ProcessInfo.processInfo.environment
    static let url = environment["FOOTPRINT_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    static let required = environment["FOOTPRINT_REQUIRE_POSTGRES"] == "1"
    static let binaries = environment["FOOTPRINT_POSTGRES_BIN"] ?? "/usr/lib/postgresql/15/bin"
    /// Whether the tests can start servers of their own.
    static let hasBinaries = FileManager.default.isExecutableFile(atPath: binaries + "/initdb")
    static let isAvailable = url != nil || hasBinaries || required
    static let reason: Comment =
        "needs PostgreSQL 15 (apt-get install postgresql) or FOOTPRINT_POSTGRES_URL; FOOTPRINT_REQUIRE_POSTGRES=1 makes it fail instead"

    /// The shared server of this test process, started on first use.
    private static let shared: Result<PostgresLocation, PostgresTestError> = {
        if let url {
            return Result { () throws(ServerError) in try PostgresLocation(url: url, environment: environment)
            }
            .mapError { PostgresTestError(message: "FOOTPRINT_POSTGRES_URL: \($0)") }
        }
        return Result { () throws(PostgresTestError) in try PostgresTestServer.start().location }
            .map { location in
                atexit { PostgresTestServer.stopShared() }
                return location
            }
    }()

    /// A new empty database on the shared server.
    static func newDatabase() throws -> PostgresLocation {
        var location = try shared.get()
        let name = "fp_test_\(UInt64.random(in: 0..<UInt64.max))"
        try admin(location) { try $0.run("CREATE DATABASE \(name)") }
        location.database = name
        return location
    }

    /// Drops a database made by ``newDatabase()``.
    static func dropDatabase(_ location: PostgresLocation) {
        var admin = location
        admin.database = (try? shared.get().database) ?? "postgres"
        try? Self.admin(admin) { try $0.run("DROP DATABASE IF EXISTS \(location.database) WITH (FORCE)") }
    }

    /// Runs `body` with a new store in a new database, then closes it and drops the database.
    static func withStore<T>(
        configure: (inout PostgresMetadataStore.Configuration) -> Void = { _ in },
        _ body: (PostgresMetadataStore) throws -> T
    ) throws -> T {
        let location = try newDatabase()
        defer { dropDatabase(location) }
        var configuration = PostgresMetadataStore.Configuration()
        configure(&configuration)
        let store = try PostgresMetadataStore(location: location, configuration: configuration)
        defer { store.close() }
        return try body(store)
    }

    private static func admin(_ location: PostgresLocation, _ body: (PostgresConnection) throws -> Void)
        throws
    {
        let connection = try PostgresConnection(
            parameters: location.connectionParameters(connectTimeoutSeconds: 5))
        try body(connection)
    }
}

/// Why a test PostgreSQL server could not start.
struct PostgresTestError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// A PostgreSQL server in a temporary folder, owned by this test process.
final class PostgresTestServer: @unchecked Sendable {
    let directory: String
    let port: UInt16
    /// Who runs `initdb` and `postgres` (`nil`: this process's user, when not root).
    private let user: String?

    /// Where it listens, as its superuser `footprint` (trust authentication, loopback only).
    var location: PostgresLocation {
        PostgresLocation(node: .init(host: "127.0.0.1", port: port), database: "postgres", user: "footprint")
    }

    private static let sharedServer = LockedValue<PostgresTestServer?>(nil)

    private init(directory: String, port: UInt16, user: String?) {
        self.directory = directory
        self.port = port
        self.user = user
    }

    /// Makes a new cluster (`initdb`) in a temporary folder and starts it.
    static func start(shared: Bool = true) throws(PostgresTestError) -> PostgresTestServer {
        let directory = NSTemporaryDirectory() + "footprint-postgres-\(UInt64.random(in: 0..<UInt64.max))"
        let user: String? = getuid() == 0 ? (userExists("postgres") ? "postgres" : "nobody") : nil
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            if let user { try run("/bin/chown", [user, directory], as: nil) }
        } catch {
            throw PostgresTestError(message: "cannot make \(directory): \(error)")
        }
        let server = PostgresTestServer(directory: directory, port: try freePort(), user: user)
        do {
            try server.run(
                "initdb",
                ["-D", directory + "/data", "-U", "footprint", "--auth=trust", "-E", "UTF8", "--no-sync"])
            try server.startAgain()
        } catch {
            server.remove()
            throw error
        }
        if shared { sharedServer.withLock { $0 = server } }
        return server
    }

    /// A server of this test alone (``start(shared:)``), to stop and start; `nil` (an issue when
    /// PostgreSQL is required) without Debian's binaries.
    static func startOwn(sourceLocation: SourceLocation = #_sourceLocation) throws -> PostgresTestServer? {
        guard PostgresTesting.hasBinaries else {
            if PostgresTesting.required {
                Issue.record(
                    "no PostgreSQL binaries at \(PostgresTesting.binaries)", sourceLocation: sourceLocation)
            }
            return nil
        }
        return try start(shared: false)
    }

    /// Starts the server (again), waiting until it accepts connections.
    func startAgain() throws(PostgresTestError) {
        try run(
            "pg_ctl",
            [
                "-D", directory + "/data", "-l", directory + "/log", "-w", "-t", "60", "-o",
                "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60",
                "start",
            ])
    }

    /// Stops the server at once (`immediate`: what a crash or a pulled plug looks like to clients).
    func stop() {
        try? run("pg_ctl", ["-D", directory + "/data", "-m", "immediate", "-w", "stop"])
    }

    /// Stops the server and deletes its folder.
    func remove() {
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Stops the shared server (at the test process's exit).
    static func stopShared() {
        sharedServer.withLock { $0 }?.remove()
    }

    private func run(_ tool: String, _ arguments: [String]) throws(PostgresTestError) {
        try Self.run(PostgresTesting.binaries + "/" + tool, arguments, as: user)
    }

    private static func run(_ path: String, _ arguments: [String], as user: String?) throws(PostgresTestError)
    {
        let command = user.map { ["/usr/sbin/runuser", "-u", $0, "--", path] } ?? [path]
        // posix_spawn and waitpid rather than Process: pg_ctl leaves a daemon behind, which
        // Foundation's Process waits on in some releases. The output goes to a file (a pipe
        // would stay open in the daemon).
        let outputPath =
            NSTemporaryDirectory() + "footprint-postgres-tool-\(UInt64.random(in: 0..<UInt64.max)).log"
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Nothing else is inherited: pg_ctl leaves the server running, and a descriptor it kept
        // (the pipe of a command another test runs meanwhile) would never reach its end of file.
        // (glibc 2.34's `posix_spawn_file_actions_addclosefrom_np`, which Swift's Glibc does not import.)
        typealias CloseFrom =
            @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        if let symbol = dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addclosefrom_np") {
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
        }
        let argv = (command + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, command[0], &actions, nil, argv, environ)
        guard spawned == 0 else {
            throw PostgresTestError(message: "cannot run \(command[0]): error \(spawned)")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else {
                throw PostgresTestError(message: "cannot wait for \(path): errno \(errno)")
            }
        }
        // Exited (low 7 bits 0) with status 0.
        guard status & 0x7F == 0, (status >> 8) & 0xFF == 0 else {
            let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            throw PostgresTestError(
                message: "\(path) \(arguments.joined(separator: " ")) failed (\(status)): \(text)")
        }
    }

    private static func userExists(_ name: String) -> Bool {
        getpwnam(name) != nil
    }

    /// A TCP port nothing listens on now (``freeLoopbackPort()``).
    private static func freePort() throws(PostgresTestError) -> UInt16 {
        do {
            return try freeLoopbackPort()
        } catch {
            throw PostgresTestError(message: "no free port: \(error)")
        }
    }
}
