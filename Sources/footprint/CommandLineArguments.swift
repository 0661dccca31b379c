/// The arguments of one subcommand: positional values, `--name value` options and `--flag`s.
struct CommandLineArguments {
    /// A command line that cannot be understood.
    struct UsageError: Error, CustomStringConvertible {
        var description: String
    }

    var positional: [String] = []
    /// Each option's value (the last, when it is given more than once).
    var options: [String: String] = [:]
    /// Every value of each option, in order (``options`` keeps the last).
    var repeatedOptions: [String: [String]] = [:]
    var flags: Set<String> = []

    /// Parses `arguments`, accepting only the given option names (which take a value) and flags.
    init(_ arguments: ArraySlice<String>, options known: Set<String>, flags knownFlags: Set<String>) throws {
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            guard argument.hasPrefix("--"), argument.count > 2 else {
                positional.append(argument)
                continue
            }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if knownFlags.contains(name), inlineValue == nil {
                flags.insert(name)
            } else if known.contains(name) {
                guard let value = inlineValue ?? remaining.popFirst() else {
                    throw UsageError(description: "--\(name) needs a value")
                }
                options[name] = value
                repeatedOptions[name, default: []].append(value)
            } else {
                throw UsageError(description: "unknown option --\(name)")
            }
        }
    }

    /// The option's value as an integer in `range`, or `defaultValue` when absent.
    func integer(_ name: String, default defaultValue: Int, in range: ClosedRange<Int>) throws -> Int {
        guard let text = options[name] else { return defaultValue }
        guard let value = Int(text), range.contains(value) else {
            throw UsageError(
                description:
                    "--\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// The option's value as a number above 0, or `nil` when absent.
    func positiveNumber(_ name: String) throws -> Double? {
        guard let text = options[name] else { return nil }
        guard let value = Double(text), value > 0, value.isFinite else {
            throw UsageError(description: "--\(name) must be a number above 0")
        }
        return value
    }
}
