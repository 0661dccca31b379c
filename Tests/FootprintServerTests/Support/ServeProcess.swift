import FootprintWire
import Foundation
import Testing

/// The real `footprint serve` process on a free port, as a child of the test.
final class ServeProcess {
    let process = Process()
    let port: UInt16
    let writeKey: String

    /// Starts `footprint serve --db database --port 0` with `arguments` added, and waits until it
    /// prints its address and write key.
    init(executable: URL, database: String, arguments: [String] = []) throws {
        process.executableURL = executable
        process.arguments = ["serve", "--db", database, "--port", "0"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The server prints its address and write key, then "Press Ctrl-C to stop."
        var text = ""
        while !text.contains("Press Ctrl-C") {
            let data = output.fileHandleForReading.availableData
            guard !data.isEmpty else { break }
            text += String(decoding: data, as: UTF8.self)
        }
        func value(after marker: String) -> String? {
            guard let range = text.range(of: marker) else { return nil }
            return String(text[range.upperBound...].prefix { !$0.isWhitespace })
        }
        guard let port = value(after: "listening on http://127.0.0.1:").flatMap(UInt16.init),
            let writeKey = value(after: "write key: ")
        else {
            process.terminate()
            throw LoopbackClient.Failure(description: "footprint serve did not start: \(text)")
        }
        self.port = port
        self.writeKey = writeKey
    }

    var client: LoopbackClient { LoopbackClient(port: port) }

    func stop(signal: Int32) {
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
    }
}
