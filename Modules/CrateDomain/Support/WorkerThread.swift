import Foundation

/// Threads of our own (decoding, scanning, a transfer, a bus loop) that let go of what they captured before they end.
///
/// Foundation keeps a `Thread`'s block until the thread's key destructors run, and libdispatch's destructor runs
/// first: it frees the thread's cache of dispatch continuations but leaves the thread's pointer to it
/// (swift-corelibs-libdispatch, `_libdispatch_tsd_cleanup`). When the block then held the last reference to a dispatch
/// queue with queue-specific values (each GRDB connection's queue has one), disposing of the queue dispatches its
/// clean-up through that stale cache: libdispatch writes a continuation into freed memory, and the heap is corrupt
/// ("tcache_thread_shutdown(): unaligned tcache chunk detected" when the thread exits). It happened to an import's
/// scanner thread, whose block held the scan's database snapshot. Here the body is released on the thread while
/// the thread is still whole. `scripts/check-boundaries.sh` fails on `Thread {` and `Thread.detachNewThread` elsewhere.
public enum WorkerThread {
    /// Runs `body` on a new thread called `name` (as `top` and debuggers show it).
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let held = HeldBody(body)
        let thread = Thread { held.run() }
        thread.name = name
        thread.start()
    }
}

/// The body, handed to the new thread and dropped there once it has run.
private final class HeldBody: @unchecked Sendable {
    // Set before `Thread.start` (which orders it before the thread's first read) and touched by that thread alone.
    private var body: (@Sendable () -> Void)?

    init(_ body: @escaping @Sendable () -> Void) { self.body = body }

    func run() {
        guard let body else { return }
        self.body = nil
        body()
        // `body`, and all it captured, is released here, before the thread's destructors run.
    }
}
