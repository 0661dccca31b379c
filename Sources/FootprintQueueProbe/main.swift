import Footprint
// Used only by the queue's kill test: tracks numbered events as fast as it can into the queue in
// the folder given as the first argument, and after every 1,000 waits until they are on disk and
// prints `stored N`. The test kills it with SIGKILL mid-stream and counts what survived.
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 3, let total = Int(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: FootprintQueueProbe <directory> <event count>\n".utf8))
    exit(2)
}
var configuration = Tracker.Configuration(writeKey: "probe", serverURL: "http://127.0.0.1:1")
configuration.remoteConfigRefreshSeconds = nil
configuration.storageDirectory = arguments[1]
configuration.flushAt = Int.max
configuration.flushIntervalSeconds = 86_400
configuration.maximumQueuedEvents = 10_000_000
configuration.maximumQueuedBytes = 1 << 40
configuration.maximumPendingEvents = 1_000_000
let tracker = Tracker(configuration: configuration)
for index in 0..<total {
    tracker.track("probe", properties: ["seq": .int(Int64(index))])
    if (index + 1) % 1000 == 0 {
        guard tracker.waitUntilStored(timeoutSeconds: 30) else { exit(1) }
        FileHandle.standardOutput.write(Data("stored \(index + 1)\n".utf8))
    }
}
tracker.waitUntilStored(timeoutSeconds: 30)
FileHandle.standardOutput.write(Data("done\n".utf8))
