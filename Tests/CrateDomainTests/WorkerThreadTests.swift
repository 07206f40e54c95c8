import CrateDomain
import Foundation
import Synchronization
import Testing

/// A worker thread lets go of what its body captured while the thread is still whole (see `WorkerThread`: a GRDB
/// database released later, from the thread's destructors, corrupted the heap through libdispatch's freed cache).
@Suite struct WorkerThreadTests {
    /// Records, when it is released, which thread released it and the `Thread` object that thread had then.
    final class Witness: Sendable {
        let seen: Mutex<(thread: pthread_t, object: ObjectIdentifier)?> = Mutex(nil)
        let onRelease: @Sendable (pthread_t, ObjectIdentifier) -> Void

        init(onRelease: @escaping @Sendable (pthread_t, ObjectIdentifier) -> Void) { self.onRelease = onRelease }

        deinit { onRelease(pthread_self(), ObjectIdentifier(Thread.current)) }
    }

    @Test(.timeLimit(.minutes(1))) func whatTheBodyCapturedIsReleasedOnTheThreadBeforeItsDestructors() async throws {
        // From a key destructor the thread's `Thread` object is already gone (its slot is emptied before its
        // destructor runs), so `Thread.current` there is a new object: the same object means the body's own time.
        let released: (body: (pthread_t, ObjectIdentifier), release: (pthread_t, ObjectIdentifier)) =
            await withCheckedContinuation { continuation in
                let bodySaw = Mutex<(pthread_t, ObjectIdentifier)?>(nil)
                let report: @Sendable (pthread_t, ObjectIdentifier) -> Void = { thread, object in
                    if let body = bodySaw.withLock({ $0 }) { continuation.resume(returning: (body, (thread, object))) }
                }
                // Made in the capture list, so the body holds the only reference once this statement is over. Until
                // then this thread may hold one of its own (a debug build copies the new object into the closure and
                // releases the original at the statement's end): the body waits for `over`, or a worker quick enough to
                // finish first would leave the last release to this thread (it did once, in a CI run under load).
                let over = DispatchSemaphore(value: 0)
                WorkerThread.start(name: "test-worker") { [witness = Witness(onRelease: report)] in
                    over.wait()
                    bodySaw.withLock { $0 = (pthread_self(), ObjectIdentifier(Thread.current)) }
                    _ = witness
                }
                over.signal()
            }
        #expect(pthread_equal(released.body.0, released.release.0) != 0, "the body's captures were released on another thread")
        #expect(released.body.1 == released.release.1,
                "the body's captures were released after the thread's Thread object was gone (from its destructors)")
    }
}
