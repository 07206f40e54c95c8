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
