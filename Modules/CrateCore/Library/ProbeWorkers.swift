import CrateDomain
import Foundation

/// Threads of the import's own, one per core, that run probes in the order they were handed over. (The global
/// dispatch queue ran the probes of several folders on one thread most of the time on Linux: the import of 3,000
/// files at 1.3 cores of 2.) The threads end once `finish()` was called and the last job has run.
final class ProbeWorkers: @unchecked Sendable {
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var jobs: [@Sendable () -> Void] = []
    private var next = 0
    private var finished = false

    init(threads: Int = ProcessInfo.processInfo.activeProcessorCount) {
        for n in 1...max(1, threads) {
            WorkerThread.start(name: "crate-probe-\(n)") { [self] in
                while let job = take() { job() }
            }
        }
    }

    func run(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// No more jobs come: each thread ends when none is left.
    func finish() {
        condition.lock()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    private func take() -> (@Sendable () -> Void)? {
        condition.lock()
        defer { condition.unlock() }
        while next == jobs.count && !finished { condition.wait() }
        guard next < jobs.count else { return nil }
        let job = jobs[next]
        next += 1
        // Taken jobs are dropped now and then, so the list does not hold every closure of a long scan.
        if next >= 1024 && next * 2 >= jobs.count {
            jobs.removeFirst(next)
            next = 0
        }
        return job
    }
}
