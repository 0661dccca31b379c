import FootprintWire
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
                "--metrics-from", "--insert-interval", "--spool", "--spool-bytes", "--spool-segment-rows",
                "--spool-segment-ms", "--replication-wait", "--settle-interval", "--settle-window",
            ]
        ),
        ("projects", ["create", "list", "--db", "--json"]),
        ("keys", ["list", "create", "revoke", "--project", "--db", "--meta", "--json"]),
        ("tokens", ["create", "list", "revoke", "signout", "--project", "--db", "--json"]),
        ("config", ["publish", "--project", "--db", "--meta", "--json"]),
        ("report", ["--db", "--meta", "--store", "--project", "--from", "--to", "--json"]),
        (
            "people",
            ["delete", "export", "deletions", "--project", "--refuse-days", "--db", "--store", "--json"]
        ),
        ("backup", ["--to", "--db", "--meta", "--store", "--json"]),
        ("generate", ["--events", "--db", "--project", "--people", "--days", "--seed"]),
        ("demo", ["--users", "--days", "--seed", "--serve"]),
        ("migrate", ["--from", "--to", "--meta", "--chunk", "--quiet"]),
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

    /// `footprint --help` is a short list, a line per command (as git's and swift's are); the
    /// options are in each command's own help.
    @Test func theOverviewListsEveryCommandOnALineOfItsOwn() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try run(["--help"])
        #expect(result.status == 0)
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count <= 25, "\(result.output)")
        for (command, _) in Self.optionsByCommand {
            #expect(
                lines.filter { $0.trimmingCharacters(in: .whitespaces).hasPrefix(command + " ") }.count == 1,
                "\(command)")
        }
        #expect(!result.output.contains("--connection-limit"))
        #expect(try run([]).output == result.output)
        #expect(try run(["help"]).output == result.output)
        let unknown = try run(["frobnicate"])
        #expect(unknown.status == 64)
        #expect(unknown.error.contains("unknown command frobnicate"))
    }

    /// A typo is one line on standard error with the command meant, not the whole usage.
    @Test func anUnknownCommandIsOneLineWithTheClosestCommand() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let typo = try run(["reprot"])
        #expect(typo.status == 64)
        #expect(typo.output.isEmpty)
        #expect(typo.error.split(separator: "\n").count == 1, "\(typo.error)")
        #expect(typo.error.contains("unknown command reprot; did you mean report?"))
        let option = try run(["--db", "x.sqlite", "report"])
        #expect(option.status == 64)
        #expect(option.error.split(separator: "\n").count == 1, "\(option.error)")
        #expect(option.error.contains("unknown option --db"))
        let helpTypo = try run(["help", "sreve"])
        #expect(helpTypo.status == 64)
        #expect(helpTypo.error.contains("did you mean serve?"))
    }

    /// `footprint help COMMAND` prints what `footprint COMMAND --help` prints.
    @Test(arguments: optionsByCommand.map { $0.command })
    func helpCommandPrintsTheCommandsUsage(_ command: String) throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let help = try run(["help", command], currentDirectory: directory)
        #expect(help.status == 0, "\(help.error)")
        #expect(help.output == (try run([command, "--help"], currentDirectory: directory)).output)
        #expect(help.output.hasPrefix("footprint \(command)"))
    }

    @Test func versionPrintsTheOneVersion() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let version = try run(["--version"])
        #expect(version.status == 0)
        #expect(version.output == "footprint \(FootprintVersion.current)\n")
        #expect(FootprintVersion.current.split(separator: ".").count == 3)
    }
}
