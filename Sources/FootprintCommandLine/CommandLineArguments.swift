/// The arguments of one subcommand: its action and the action's operands (`create NAME`),
/// `--name value` options and `--flag`s.
///
/// Anything the command does not take is refused with one line naming it and, when one is
/// close, what was meant (``ClosestMatch``): an unknown option (`--database`: did you mean
/// `--db`?), a short option (`-p`: did you mean `--port`?), a flag given a value, an action the
/// command does not have, and a positional argument past what the action takes (`serve junk`).
/// `--` ends the options: every argument after it is positional.
public struct CommandLineArguments: Sendable {
    /// The positional arguments: the action first, then its operands (none for a command
    /// without actions).
    public var positional: [String] = []
    /// Each option's value (the last, when it is given more than once).
    public var options: [String: String] = [:]
    /// Every value of each option, in order (``options`` keeps the last).
    public var repeatedOptions: [String: [String]] = [:]
    /// The flags given.
    public var flags: Set<String> = []

    /// The action (the first positional argument), `nil` when none was given.
    public var action: String? { positional.first }

    /// Parses `arguments`.
    /// - Parameters:
    ///   - arguments: the arguments after the command's name.
    ///   - known: the options, which take a value (`--db PATH` or `--db=PATH`).
    ///   - knownFlags: the flags, which take none.
    ///   - actions: each action of the command with the names of its operands, in the order the
    ///     usage lists them (`[("create", ["NAME"]), ("list", [])]`). Default: none, and then the
    ///     command takes no positional argument at all.
    /// - Throws: ``UsageError`` for anything the command does not take. An action may be left
    ///   out (``action`` is then `nil`, for the command to print its usage); given, it must be
    ///   one of `actions` with exactly its operands.
    public init(
        _ arguments: ArraySlice<String>, options known: Set<String>, flags knownFlags: Set<String>,
        actions: [(name: String, operands: [String])] = []
    ) throws(UsageError) {
        let names = ClosestMatch((known.union(knownFlags)).sorted())
        var remaining = arguments[...]
        var optionsEnded = false
        while let argument = remaining.popFirst() {
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                positional.append(argument)
            } else if argument == "--" {
                optionsEnded = true
            } else if !argument.hasPrefix("--") {
                throw UsageError(
                    .unknownOption,
                    description: "unknown option \(argument)"
                        + Self.suggestion(names.closest(to: String(argument.dropFirst())), prefix: "--"))
            } else {
                var name = String(argument.dropFirst(2))
                var inlineValue: String?
                if let equals = name.firstIndex(of: "=") {
                    inlineValue = String(name[name.index(after: equals)...])
                    name = String(name[..<equals])
                }
                if knownFlags.contains(name) {
                    guard inlineValue == nil else {
                        throw UsageError(.invalidValue, description: "--\(name) takes no value")
                    }
                    flags.insert(name)
                } else if known.contains(name) {
                    guard let value = inlineValue ?? remaining.popFirst() else {
                        throw UsageError(.missingValue, description: "--\(name) needs a value")
                    }
                    options[name] = value
                    repeatedOptions[name, default: []].append(value)
                } else {
                    throw UsageError(
                        .unknownOption,
                        description: "unknown option --\(name)"
                            + Self.suggestion(names.closest(to: name), prefix: "--"))
                }
            }
        }
        try checkPositional(actions: actions)
    }

    /// Refuses an action the command does not have, and operands missing or past the action's.
    private func checkPositional(actions: [(name: String, operands: [String])]) throws(UsageError) {
        guard let first = positional.first else { return }
        guard !actions.isEmpty else {
            throw UsageError(
                .unexpectedArgument,
                description: "unexpected argument \(first) (this command takes only options)")
        }
        guard let operands = actions.first(where: { $0.name == first })?.operands else {
            throw UsageError(
                .unexpectedArgument,
                description: "unknown action \(first)"
                    + Self.suggestion(ClosestMatch(actions.map(\.name)).closest(to: first), prefix: "")
                    + " (one of: \(actions.map(\.name).joined(separator: ", ")))")
        }
        let given = positional.dropFirst()
        if given.count > operands.count {
            throw UsageError(
                .unexpectedArgument,
                description: "unexpected argument \(given[given.startIndex + operands.count]) after "
                    + ([first] + operands).joined(separator: " "))
        }
        if given.count < operands.count {
            throw UsageError(
                .missingValue,
                description: "\(first) needs \(operands[given.count...].joined(separator: " "))")
        }
    }

    /// `; did you mean --db?`, or nothing without a match.
    private static func suggestion(_ match: String?, prefix: String) -> String {
        match.map { "; did you mean \(prefix)\($0)?" } ?? ""
    }

    /// The option's value as an integer in `range`, or `defaultValue` when absent.
    public func integer(_ name: String, default defaultValue: Int, in range: ClosedRange<Int>)
        throws(UsageError)
        -> Int
    {
        guard let text = options[name] else { return defaultValue }
        guard let value = Int(text), range.contains(value) else {
            throw UsageError(
                description:
                    "--\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// The option's value as a number above 0, or `nil` when absent.
    public func positiveNumber(_ name: String) throws(UsageError) -> Double? {
        guard let text = options[name] else { return nil }
        guard let value = Double(text), value > 0, value.isFinite else {
            throw UsageError(description: "--\(name) must be a number above 0")
        }
        return value
    }
}
