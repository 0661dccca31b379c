import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The real `footprint serve` process on a free loopback port, as a child of a test or a
/// benchmark.
public final class ServeProcess: @unchecked Sendable {
    /// The child process.
    public let process = Process()
    /// The port it listens on (127.0.0.1).
    public let port: UInt16
    /// The write key of its first project.
    public let writeKey: String

    /// Starts `footprint serve --db database --port port` (default 0: any free port) with
    /// `arguments` added, and waits until it prints its address and write key.
    /// - Throws: ``ReceiverError`` when the server exits or prints no address.
    public init(executable: URL, database: String, port: UInt16 = 0, arguments: [String] = []) throws {
        process.executableURL = executable
        process.arguments = ["serve", "--db", database, "--port", String(port)] + arguments
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
            throw ReceiverError(message: "footprint serve did not start: \(text)")
        }
        self.port = port
        self.writeKey = writeKey
    }

    /// The child's process id.
    public var pid: Int32 { process.processIdentifier }

    /// Sends `signal` (default SIGTERM) and waits for the process to end; nothing when it has.
    public func stop(signal: Int32 = SIGTERM) {
        guard process.isRunning else { return }
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
    }
}
