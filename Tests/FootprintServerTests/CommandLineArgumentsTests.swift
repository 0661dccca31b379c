import FootprintCommandLine
import Testing

/// The command line's grammar in process: what a typo meant (``ClosestMatch``) and what each
/// command refuses (``CommandLineArguments``).
struct CommandLineArgumentsTests {
    static let serveOptions: Set<String> = ["host", "port", "db", "store", "threads", "rate-limit"]

    @Test(arguments: [
        ("reprot", ["serve", "report", "projects"], "report"),
        ("database", ["host", "port", "db", "store"], "db"),
        ("p", ["host", "port", "db", "store"], "port"),
        ("j", ["db", "json", "project"], "json"),
        ("lsit", ["create", "list", "set"], "list"),
        ("prot", ["host", "port", "db"], "port"),
        ("project", ["projects", "people"], "projects"),
    ])
    func aTypoFindsWhatWasMeant(_ word: String, _ candidates: [String], _ meant: String) {
        #expect(ClosestMatch(candidates).closest(to: word) == meant)
    }

    @Test(arguments: [
        ("frobnicate", ["serve", "report", "generate", "demo"]),
        ("colour", ["db", "retention-days", "json"]),
        ("report", ["serve", "report"]),
        ("", ["serve"]),
    ])
    func nothingIsSuggestedWhenNothingIsClose(_ word: String, _ candidates: [String]) {
        #expect(ClosestMatch(candidates).closest(to: word) == nil)
    }

    @Test func theDistanceCountsASwapOnce() {
        #expect(ClosestMatch.distance("reprot", "report") == 1)
        #expect(ClosestMatch.distance("kitten", "sitting") == 3)
        #expect(ClosestMatch.distance("", "abc") == 3)
        #expect(ClosestMatch.distance("same", "same") == 0)
    }

    func refusal(
        _ arguments: [String], options: Set<String> = serveOptions, flags: Set<String> = ["json"],
        actions: [(name: String, operands: [String])] = []
    ) -> UsageError? {
        do {
            _ = try CommandLineArguments(arguments[...], options: options, flags: flags, actions: actions)
            return nil
        } catch {
            return error
        }
    }

    @Test func strayAndUnknownArgumentsAreRefusedWithWhatWasMeant() throws {
        let short = try #require(refusal(["-p", "25594"]))
        #expect(short.code == .unknownOption)
        #expect(short.description == "unknown option -p; did you mean --port?")
        let long = try #require(refusal(["--database", "x.sqlite"]))
        #expect(long.description == "unknown option --database; did you mean --db?")
        let stray = try #require(refusal(["junk", "--port", "0"]))
        #expect(stray.code == .unexpectedArgument)
        #expect(stray.description.contains("junk"))
        #expect(try #require(refusal(["-j"])).description == "unknown option -j; did you mean --json?")
        #expect(try #require(refusal(["--json=yes"])).description == "--json takes no value")
        #expect(try #require(refusal(["--port"])).code == .missingValue)
    }

    @Test func actionsTakeExactlyTheirOperands() throws {
        let actions: [(name: String, operands: [String])] = [("create", ["NAME"]), ("list", [])]
        #expect(refusal(["create", "shop"], actions: actions) == nil)
        #expect(refusal(["list"], actions: actions) == nil)
        #expect(refusal([], actions: actions) == nil)
        let unknown = try #require(refusal(["lsit"], actions: actions))
        #expect(unknown.description.hasPrefix("unknown action lsit; did you mean list?"))
        #expect(try #require(refusal(["list", "extra"], actions: actions)).code == .unexpectedArgument)
        #expect(try #require(refusal(["create"], actions: actions)).description == "create needs NAME")
    }

    @Test func optionsTakeValuesInBothSpellingsAndDashesEndThem() throws {
        let parsed = try CommandLineArguments(
            ["publish", "--port=8081", "--db", "-", "--", "--plan.json"], options: Self.serveOptions,
            flags: ["json"], actions: [("publish", ["FILE"])])
        #expect(parsed.options == ["port": "8081", "db": "-"])
        #expect(parsed.flags.isEmpty)
        #expect(parsed.action == "publish")
        #expect(parsed.positional == ["publish", "--plan.json"])
        // A negative number is the value of the option before it.
        let negative = try CommandLineArguments(["--port", "-1"], options: ["port"], flags: [])
        #expect(negative.options["port"] == "-1")
    }
}
