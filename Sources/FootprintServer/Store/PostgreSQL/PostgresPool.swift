import Foundation

/// A bounded pool of ``PostgresConnection``s to one server: at most
/// ``PostgresMetadataStore/Configuration/connections`` open at once, each lent to one caller at
/// a time. A caller waits at most ``PostgresMetadataStore/Configuration/waitSeconds`` for one.
///
/// A connection that breaks (the server stopped or restarted) is closed, and so is every idle
/// one (they point at the same gone server); the next caller connects anew, so the pool recovers
/// by itself when the server returns. The failed call is not repeated: it may have committed.
final class PostgresPool: @unchecked Sendable {
    private struct State {
        var idle: [PostgresConnection] = []
        var open = 0
        var closed = false
    }

    private let parameters: [(String, String)]
    private let maximum: Int
    private let waitSeconds: Double
    // Guards `state`; callers wait on it for a connection.
    private let condition = NSCondition()
    private var state = State()

    /// Creates a pool; no connection is opened until one is needed.
    init(parameters: [(String, String)], maximum: Int, waitSeconds: Double) {
        self.parameters = parameters
        self.maximum = max(1, maximum)
        self.waitSeconds = max(0.01, waitSeconds)
    }

    /// Runs `body` on a connection of the pool.
    /// - Throws: ``ServerError`` `unavailable` when the server cannot be reached, a connection
    ///   broke, or none was free in time; `closed` after ``close()``; `storage` for other server
    ///   errors; what `body` throws as a ``ServerError``.
    func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws(ServerError) -> T {
        let connection = try take()
        do {
            let value = try body(connection)
            give(back: connection, broken: !connection.isHealthy)
            return value
        } catch let error as PostgresError {
            give(back: connection, broken: error.connectionLost || !connection.isHealthy)
            throw error.serverError
        } catch let error as ServerError {
            give(back: connection, broken: !connection.isHealthy)
            throw error
        } catch {
            give(back: connection, broken: !connection.isHealthy)
            throw ServerError(code: .storage, message: "PostgreSQL failed: \(error)")
        }
    }

    /// Closes every idle connection and refuses later calls; connections lent out close when
    /// they come back.
    func close() {
        condition.lock()
        state.closed = true
        state.open -= state.idle.count
        state.idle.removeAll()
        condition.broadcast()
        condition.unlock()
    }

    private func take() throws(ServerError) -> PostgresConnection {
        let deadline = Date(timeIntervalSinceNow: waitSeconds)
        condition.lock()
        while true {
            if state.closed {
                condition.unlock()
                throw ServerError(code: .closed, message: "the PostgreSQL store is closed")
            }
            if let connection = state.idle.popLast() {
                condition.unlock()
                return connection
            }
            if state.open < maximum {
                state.open += 1
                condition.unlock()
                do {
                    return try PostgresConnection(parameters: parameters)
                } catch {
                    condition.lock()
                    state.open -= 1
                    condition.signal()
                    condition.unlock()
                    throw error.serverError
                }
            }
            guard condition.wait(until: deadline) else {
                condition.unlock()
                throw ServerError(
                    code: .unavailable,
                    message:
                        "all \(maximum) PostgreSQL connections stayed busy for \(waitSeconds) s, retry later")
            }
        }
    }

    private func give(back connection: PostgresConnection, broken: Bool) {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        if broken {
            // The server went away: the idle connections are as dead as this one.
            state.open -= 1 + state.idle.count
            state.idle.removeAll()
        } else if state.closed {
            state.open -= 1
        } else {
            state.idle.append(connection)
        }
    }
}
