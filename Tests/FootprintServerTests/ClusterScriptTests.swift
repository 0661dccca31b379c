import FootprintServer
import Foundation
import Testing

/// `scripts/cluster.sh`'s own pieces, run without starting anything.
struct ClusterScriptTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../scripts/cluster.sh").standardized.path

    /// Runs one function of the script in bash (its definition only, not the script).
    func call(_ function: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [
            "-c", "eval \"$(sed -n '/^\(function)() {/,/^}/p' \"$0\")\" && \(function)", Self.script,
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `make cluster` prints an admin token of the shape the server's own have (`fpa_` and 32
    /// hexadecimal digits), not bare digits.
    @Test func theClustersAdminTokenHasTheServersShape() throws {
        let token = try call("new_admin_token")
        let servers = AccessConfiguration().adminToken
        #expect(token.hasPrefix("fpa_"), "\(token)")
        #expect(token.count == servers.count)
        #expect(token.dropFirst(4).allSatisfy { $0.isHexDigit })
        #expect(try call("new_admin_token") != token)
    }
}
