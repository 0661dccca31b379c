import Foundation
import Testing

/// `footprint COMMAND --help` for every command: its usage and every option, on standard output,
/// exit status 0, and nothing run.
extension CommandLineTests {
    static let optionsByCommand: [(command: String, options: [String])] = [
        (
            "serve",
            [
                "--host", "--port", "--db", "--connection-limit", "--rate-limit", "--admin-token",
                "--read-token",
                "--metrics-from", "--insert-interval",
            ]
        ),
        ("projects", ["create", "list", "--db", "--json"]),
        ("tokens", ["create", "list", "revoke", "signout", "--project", "--read", "--db", "--json"]),
        ("config", ["publish", "--project", "--db", "--json"]),
        ("report", ["--db", "--project", "--from", "--to", "--json"]),
        ("backup", ["--to", "--db", "--json"]),
        ("generate", ["--events", "--db", "--project", "--people", "--days", "--seed"]),
        ("demo", ["--users", "--days", "--seed", "--serve"]),
    ]

    @Test(arguments: optionsByCommand.map { $0.command }, ["--help", "-h"])
    func everyCommandPrintsItsUsageAndOptions(_ command: String, _ help: String) throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let options = try #require(Self.optionsByCommand.first { $0.command == command }?.options)
        let result = try run([command, help], currentDirectory: directory)
        #expect(result.status == 0, "\(result.error)")
        #expect(result.error.isEmpty)
        #expect(result.output.hasPrefix("footprint \(command)"))
        for option in options {
            // Each option in the synopsis and again on a line of its own that says what it does.
            #expect(result.output.contains(option))
            #expect(
                result.output.split(separator: "\n").contains {
                    $0.trimmingCharacters(in: .whitespaces).hasPrefix(option + " ")
                },
                "\(command): \(option) is not described")
        }
        // Nothing ran: no database was created where the command would have made one.
        #expect(!FileManager.default.fileExists(atPath: directory + "/footprint.sqlite"))
    }

    @Test func theOverviewListsEveryCommand() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try run(["--help"])
        #expect(result.status == 0)
        for (command, _) in Self.optionsByCommand {
            #expect(result.output.contains("footprint \(command)"))
        }
        let unknown = try run(["frobnicate"])
        #expect(unknown.status == 64)
        #expect(unknown.error.contains("unknown command frobnicate"))
    }
}
