import Foundation

/// Waits for `condition` (checked every 50 ms, at most `seconds`); fails with `what` when it never holds.
/// The bound is a hang guard, not a timing check.
public func waitUntil(_ what: String, seconds: Double, _ condition: () throws -> Bool) throws {
    let deadline = Date().addingTimeInterval(seconds)
    while try !condition() {
        guard Date() < deadline else { throw Fixture.ToolError(description: "timed out after \(seconds) s waiting for: \(what)") }
        usleep(50_000)
    }
}

/// The async form of `waitUntil`: checks `condition` every 20 ms for at most `seconds`, then fails with `what`.
public func waitUntilAsync(_ what: String, seconds: Double, isolation: isolated (any Actor)? = #isolation,
                           _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while try await !condition() {
        guard ContinuousClock.now < deadline else {
            throw Fixture.ToolError(description: "timed out after \(seconds) s waiting for: \(what)")
        }
        try await Task.sleep(for: .milliseconds(20))
    }
}

/// Runs `body` (a wait on events, say) and fails with `what` if it has not finished within `seconds`: a hang guard,
/// not a timing check. `body` is cancelled then, which ends an `AsyncStream` loop.
public func withHangGuard<T: Sendable>(_ what: String, seconds: Double,
                                       _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            throw Fixture.ToolError(description: "timed out after \(seconds) s waiting for: \(what)")
        }
        return value
    }
}
