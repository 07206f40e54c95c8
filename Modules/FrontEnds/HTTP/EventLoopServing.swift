import NIOCore
import NIOPosix
import ServiceLifecycle

/// Runs a service with its tasks on SwiftNIO's event loops: a task is resumed on the event loop that woke it (the one
/// its connection reads from), so a request is read, answered and written on one thread, without a hop to Swift's
/// global pool and back (Benchmarks/README.md, issue 30: play latency).
struct EventLoopServing: Service {
    let base: any Service

    func run() async throws {
        try await withTaskExecutorPreference(EventLoopsExecutor.shared) { try await base.run() }
    }
}

/// Jobs go to the current event loop when enqueued on one (`any()`), else to the next.
final class EventLoopsExecutor: TaskExecutor {
    static let shared = EventLoopsExecutor()
    private let group = MultiThreadedEventLoopGroup.singleton

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        group.any().execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
