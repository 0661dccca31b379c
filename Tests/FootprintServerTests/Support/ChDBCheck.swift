import FootprintWire
import Foundation
import Testing

@testable import FootprintServer

/// Runs SQL on chDB (a current ClickHouse release, in-process) through
/// Tests/ClickHouse/chdb_check.py, which fails on any statement's error.
enum ChDBCheck {
    /// The Python that has chDB: `FOOTPRINT_CHDB_PYTHON` (set by make test), else the virtual
    /// environment make test-deps installs; `nil` when neither exists.
    static let python: String? = {
        let candidates = [
            ProcessInfo.processInfo.environment["FOOTPRINT_CHDB_PYTHON"] ?? "",
            ClickHouseTestEnvironment.root.appendingPathComponent(".build/chdb/bin/python").path,
        ]
        return candidates.first { !$0.isEmpty && FileManager.default.isExecutableFile(atPath: $0) }
    }()

    static let missing: Comment = "no chDB: make test-deps installs it into .build/chdb"

    /// Runs `statements` in order in one chDB session; records an issue naming each statement
    /// that failed.
    static func expectEveryStatementRuns(
        _ statements: [(label: String, sql: String)], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        try expectEveryStatementRuns(
            statements.map { ($0.label, $0.sql, nil) }, sourceLocation: sourceLocation)
    }

    /// ``expectEveryStatementRuns(_:sourceLocation:)`` where a statement may also give the TSV
    /// text it must return (`expect`).
    static func expectEveryStatementRuns(
        _ statements: [(label: String, sql: String, expect: String?)],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        try expectEveryStatementRuns(
            statements.map { Statement(label: $0.label, sql: $0.sql, expect: $0.expect) },
            sourceLocation: sourceLocation)
    }

    /// A statement for chDB: its SQL, the TSV text it must return when given, for an INSERT
    /// `… FORMAT RowBinary` its rows (sent as the statement's `FROM INFILE`), and the table of
    /// rows a read sends along (made as a table of that name for the statement, then dropped).
    struct Statement {
        var label: String
        var sql: String
        var expect: String?
        var data: [UInt8]?
        var external: [ClickHouseExternalTable] = []
    }

    /// Runs `statements` in order in one chDB session; records an issue naming each statement
    /// that failed or returned other rows than it expects.
    static func expectEveryStatementRuns(
        _ statements: [Statement], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let python = try #require(python, missing, sourceLocation: sourceLocation)
        let file = NSTemporaryDirectory() + "footprint-chdb-\(UInt32.random(in: 0..<UInt32.max)).json"
        defer { try? FileManager.default.removeItem(atPath: file) }
        let json = JSONValue.array(
            statements.map { statement in
                var entry: [String: JSONValue] = [
                    "label": .string(statement.label), "sql": .string(statement.sql),
                ]
                if let expected = statement.expect { entry["expect"] = .string(expected) }
                if let data = statement.data { entry["data"] = .string(Data(data).base64EncodedString()) }
                if !statement.external.isEmpty {
                    entry["external"] = .array(
                        statement.external.map { table in
                            .object([
                                "name": .string(table.name), "structure": .string(table.structure),
                                "data": .string(Data(table.rows.bytes).base64EncodedString()),
                            ])
                        })
                }
                return .object(entry)
            })
        try JSONWriter.string(json).write(toFile: file, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [
            ClickHouseTestEnvironment.root.appendingPathComponent("Tests/ClickHouse/chdb_check.py").path,
            file,
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let failures = output.split(separator: "\n").filter {
            $0.hasPrefix("FAIL") || $0.hasPrefix("chdb_check")
        }
        #expect(
            process.terminationStatus == 0, "\(failures.joined(separator: "\n"))",
            sourceLocation: sourceLocation)
        #expect(
            output.contains("all \(statements.count) statements ran"), "\(output.suffix(2000))",
            sourceLocation: sourceLocation)
    }
}
