import FootprintCommandLine
import FootprintServer
import FootprintWire
import Foundation

/// A subcommand of `footprint`.
protocol Command {
    /// What follows `footprint` (`serve`).
    static var name: String { get }
    /// What it does, in one line of `footprint --help`.
    static var summary: String { get }
    /// Its usage with every option (`footprint help NAME`).
    static var usage: String { get }
    /// Runs it with the arguments after its name.
    static func run(_ arguments: ArraySlice<String>) throws
}

let subcommands: [any Command.Type] = [
    ServeCommand.self, ProjectsCommand.self, KeysCommand.self, TokensCommand.self, PeopleCommand.self,
    ConfigCommand.self,
    ReportCommand.self, BackupCommand.self, MigrateCommand.self, GenerateCommand.self, DemoCommand.self,
]

/// `footprint --help`: one line per command.
let overview = """
    usage: footprint COMMAND [OPTIONS]

    Self-hosted user-behaviour analytics for iOS apps.

    Commands:
    \(subcommands.map { "  " + $0.name.padding(toLength: 10, withPad: " ", startingAt: 0) + $0.summary }
        .joined(separator: "\n"))

    footprint help COMMAND (or footprint COMMAND --help) prints a command's options.
    footprint --version prints the version.
    """

/// The usage error of a first argument that is no command, with the closest one.
@MainActor func unknownCommand(_ name: String) -> UsageError {
    let names = ClosestMatch(subcommands.map { $0.name } + ["help"])
    let kind = name.hasPrefix("-") ? "option" : "command"
    let guess = name.hasPrefix("-") ? nil : names.closest(to: name)
    return UsageError(
        kind == "option" ? .unknownOption : .unknownCommand,
        description: "unknown \(kind) \(name)\(guess.map { "; did you mean \($0)?" } ?? "")"
            + " (footprint --help lists the commands)")
}

/// The subcommand called `name`.
@MainActor func subcommand(named name: String) throws(UsageError) -> any Command.Type {
    guard let found = subcommands.first(where: { $0.name == name }) else { throw unknownCommand(name) }
    return found
}

let arguments = CommandLine.arguments.dropFirst()
do {
    switch arguments.first {
    case nil, "--help", "-h":
        print(overview)
    case "--version":
        print("footprint \(FootprintVersion.current)")
    case "help":
        let topic = arguments.dropFirst()
        if let name = topic.first {
            if topic.count > 1 {
                throw UsageError(
                    .unexpectedArgument, description: "unexpected argument \(topic.dropFirst().first!)")
            }
            print(try subcommand(named: name).usage)
        } else {
            print(overview)
        }
    case let name?:
        let command = try subcommand(named: name)
        let rest = arguments.dropFirst()
        if rest.contains("--help") || rest.contains("-h") {
            print(command.usage)
        } else {
            try command.run(rest)
        }
    }
} catch let error as UsageError {
    Output.error("error: \(error.description)")
    exit(64)
} catch let error as ServerError {
    Output.error("error: \(error.message)")
    exit(1)
} catch {
    Output.error("error: \(error)")
    exit(1)
}
