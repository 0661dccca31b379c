import FootprintServer
import Foundation

let usage = """
    footprint: self-hosted user-behaviour analytics for iOS apps.

    \(ServeCommand.usage)
    \(ProjectsCommand.usage)
    \(ConfigCommand.usage)
    \(ReportCommand.usage)
    \(GenerateCommand.usage)
    \(DemoCommand.usage)
    """

let arguments = CommandLine.arguments.dropFirst()
do {
    switch arguments.first {
    case "serve": try ServeCommand.run(arguments.dropFirst())
    case "projects": try ProjectsCommand.run(arguments.dropFirst())
    case "config": try ConfigCommand.run(arguments.dropFirst())
    case "report": try ReportCommand.run(arguments.dropFirst())
    case "generate": try GenerateCommand.run(arguments.dropFirst())
    case "demo": try DemoCommand.run(arguments.dropFirst())
    case "help", "--help", "-h", nil: print(usage)
    default:
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
