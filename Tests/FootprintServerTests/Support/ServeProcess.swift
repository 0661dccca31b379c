import FootprintLoopback

extension ServeProcess {
    /// A client of the server's port.
    var client: LoopbackClient { LoopbackClient(port: port) }
}
