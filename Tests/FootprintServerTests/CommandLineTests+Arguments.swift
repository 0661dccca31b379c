import Foundation
import Testing

/// Stray and unknown arguments: every command refuses what it does not take, in one line with
/// the option meant, and runs nothing (`serve -p 25594` used to start on 8080).
extension CommandLineTests {
    static let refusedArguments: [(arguments: [String], says: String)] = [
        (["serve", "-p", "25594"], "unknown option -p; did you mean --port?"),
        (["serve", "junk", "--port", "0"], "unexpected argument junk"),
        (
            ["serve", "--database", "x.sqlite", "--port", "0"],
            "unknown option --database; did you mean --db?"
        ),
        (["report", "-j"], "unknown option -j; did you mean --json?"),
        (["report", "extra"], "unexpected argument extra"),
        (["projects", "list", "extra"], "unexpected argument extra"),
        (["projects", "lsit"], "unknown action lsit; did you mean list?"),
        (["projects", "create", "a", "b"], "unexpected argument b"),
        (["tokens", "list", "-j"], "unknown option -j; did you mean --json?"),
        (["tokens", "create", "--project", "shop", "--read"], "unknown option --read"),
        (["people", "export", "user-1", "user-2"], "unexpected argument user-2"),
        (["config", "publish", "a.json", "b.json"], "unexpected argument b.json"),
        (["backup", "--to", "copy.sqlite", "now"], "unexpected argument now"),
        (["migrate", "--from", "x.sqlite", "--to", "clickhouse://127.0.0.1:1/x", "-q"], "unknown option -q"),
        (
            ["generate", "--events", "10", "--evnets", "20"],
            "unknown option --evnets; did you mean --events?"
        ),
        (["demo", "--users", "3", "-s"], "unknown option -s"),
        (["demo", "fast"], "unexpected argument fast"),
    ]

    @Test(arguments: refusedArguments.indices)
    func strayAndUnknownArgumentsAreRefusedInOneLine(_ index: Int) throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (arguments, says) = Self.refusedArguments[index]
        let result = try run(arguments, currentDirectory: directory, killAfter: 30)
        #expect(result.status == 64, "\(arguments): \(result.output)")
        #expect(result.error.contains(says), "\(arguments): \(result.error)")
        #expect(result.error.split(separator: "\n").count == 1, "\(arguments): \(result.error)")
        #expect(!result.output.contains("listening"))
        // Nothing ran: no database was made.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
    }
}
