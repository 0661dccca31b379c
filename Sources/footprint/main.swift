import FootprintServer
import Foundation

/// A subcommand: its name, its usage with every option, and what runs it.
struct Subcommand {
    var name: String
    var usage: String
    var run: (ArraySlice<String>) throws -> Void
}

let subcommands = [
    Subcommand(name: "serve", usage: ServeCommand.usage, run: ServeCommand.run),
    Subcommand(name: "projects", usage: ProjectsCommand.usage, run: ProjectsCommand.run),
    Subcommand(name: "tokens", usage: TokensCommand.usage, run: TokensCommand.run),
    Subcommand(name: "people", usage: PeopleCommand.usage, run: PeopleCommand.run),
    Subcommand(name: "config", usage: ConfigCommand.usage, run: ConfigCommand.run),
    Subcommand(name: "report", usage: ReportCommand.usage, run: ReportCommand.run),
    Subcommand(name: "backup", usage: BackupCommand.usage, run: BackupCommand.run),
    Subcommand(name: "migrate", usage: MigrateCommand.usage, run: MigrateCommand.run),
    Subcommand(name: "generate", usage: GenerateCommand.usage, run: GenerateCommand.run),
    Subcommand(name: "demo", usage: DemoCommand.usage, run: DemoCommand.run),
]

let usage = """
    footprint: self-hosted user-behaviour analytics for iOS apps.

    \(subcommands.map(\.usage).joined(separator: "\n"))

    footprint COMMAND --help prints one command's usage.
    """

let arguments = CommandLine.arguments.dropFirst()
do {
    if let name = arguments.first, let subcommand = subcommands.first(where: { $0.name == name }) {
        let rest = arguments.dropFirst()
        if rest.contains("--help") || rest.contains("-h") {
            print(subcommand.usage)
        } else {
            try subcommand.run(rest)
        }
    } else if [nil, "help", "--help", "-h"].contains(arguments.first) {
        print(usage)
    } else {
        Output.error("unknown command \(arguments.first!)\n\n\(usage)")
        exit(64)
    }
} catch let error as CommandLineArguments.UsageError {
    Output.error("error: \(error.description)")
    exit(64)
} catch let error as ServerError {
    Output.error("error: \(error.message)")
    exit(1)
} catch {
    Output.error("error: \(error)")
    exit(1)
}
