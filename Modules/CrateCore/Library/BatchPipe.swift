import CrateDomain
import Foundation

/// Hands scan batches from the scanner's thread to the importer: the next folders are walked and probed while the
/// importer hashes, copies and saves the last ones. Bounded, so memory stays flat (a batch holds tags and hashes,
/// never pictures); deep enough that the scanner keeps going while the importer saves half a second of folders in
/// one transaction (3 folders stalled it there: the import ran at 1.2 cores of 2).
final class BatchPipe: @unchecked Sendable {
    private let condition = NSCondition()
    private var queue: [ScanBatch] = []
    private var finished = false
    private var failure: (any Error)?
    private var cancelled = false
    private let capacity: Int

    init(capacity: Int = 64) {
        self.capacity = capacity
    }

    /// Called by the scanner; waits while the pipe is full. Throws once the importer has given up.
    func put(_ batch: ScanBatch) throws {
        condition.lock()
        defer { condition.unlock() }
        while queue.count >= capacity && !cancelled { condition.wait() }
        if cancelled { throw CancellationError() }
        queue.append(batch)
        condition.broadcast()
    }

    /// Called by the scanner when it is done, with its error if it failed.
    func finish(_ error: (any Error)?) {
        condition.lock()
        finished = true
        failure = error
        condition.broadcast()
        condition.unlock()
    }

    /// What `take` found.
    enum Taken {
        case batch(ScanBatch)
        /// Nothing came before the deadline.
        case waiting
        case end
    }

    /// The next batch, or `.waiting` when none came by `deadline` (nil: wait as long as it takes); `.end` at the
    /// end. Rethrows the scanner's error once everything before it was taken.
    func take(until deadline: Date? = nil) throws -> Taken {
        condition.lock()
        defer { condition.unlock() }
        while queue.isEmpty && !finished {
            if let deadline {
                if !condition.wait(until: deadline) && queue.isEmpty && !finished { return .waiting }
            } else {
                condition.wait()
            }
        }
        if !queue.isEmpty {
            condition.broadcast()
            return .batch(queue.removeFirst())
        }
        if let failure { throw failure }
        return .end
    }

    /// Called by the importer when it stops early: the scanner's next `put` throws.
    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }
}
