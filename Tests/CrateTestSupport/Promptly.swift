public import Testing

/// Runs each test it marks as a high-priority task. Many suites block their worker thread while they make fixtures
/// (ffmpeg, sox) or read a whole file; with every suite in parallel on a 2-core machine they held both of the default
/// pool's threads for minutes, and a test that waits on something live in this process (the player's actor, a
/// loopback server, the engine's events) saw its hang guard run out while it was only queued. High-priority jobs
/// have worker threads of their own (the tasks these tests start inherit the priority), so such a test is served
/// while the blocking suites go on. Mark suites that wait on in-process async work with `@Suite(.promptly)`.
public struct Promptly: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        guard testCase != nil else { return try await function() }
        // The task is awaited here, so the closure does not outlive this call.
        try await withoutActuallyEscaping(function) { body in
            try await Task(priority: .high) { try await body() }.value
        }
    }
}

extension Trait where Self == Promptly {
    /// See `Promptly`.
    public static var promptly: Self { Self() }
}
