/// Where a handler sends the answer to one request, now or later, from any thread.
///
/// The first call of ``respond(_:)`` answers; later calls are ignored. ``HTTPServer`` keeps no
/// thread waiting meanwhile: a request answered after its handler returned has its connection
/// suspended and resumed when the answer arrives.
public struct ServerResponder: Sendable {
    private let deliver: @Sendable (ServerResponse) -> Void

    /// A responder that passes the answer to `deliver` (which must take it at most once).
    public init(_ deliver: @escaping @Sendable (ServerResponse) -> Void) {
        self.deliver = deliver
    }

    /// Answers the request.
    public func respond(_ response: ServerResponse) {
        deliver(response)
    }
}
