import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The rate window shared by every Crate process of one data folder: `crate` commands run back to back (or beside
/// crated) each start a client of their own, and with a window per process they sent far more than the configured
/// rate between them (58 requests/s at 20). The grants live in a small file, read and rewritten under `flock` at
/// each request; its times are CLOCK_BOOTTIME nanoseconds, one clock for every process on the machine (Swift's
/// ContinuousClock on Linux reads the same clock).
///
/// When the file cannot be used (a read-only data folder), this process keeps its own window: the rate still holds
/// within it, and `problem` says why the budget is not shared.
struct SharedRequestWindow: Sendable {
    private(set) var window: RequestWindow
    let path: String?
    private(set) var problem: String?

    init(rate: Double, path: String?) {
        window = RequestWindow(rate: rate)
        self.path = path
    }

    mutating func take() -> Duration? {
        shared { $0.take(now: $1) } ?? window.take()
    }

    mutating func pause(until: ContinuousClock.Instant) {
        if shared({ window, _ in window.pause(until: until) }) == nil { window.pause(until: until) }
    }

    /// Runs `body` on the window as the file holds it, under the file's lock, and writes the result back; nil when
    /// there is no usable file.
    private mutating func shared<T>(_ body: (inout RequestWindow, ContinuousClock.Instant) -> T) -> T? {
        guard let path, problem == nil, !window.unlimited else { return nil }
        var fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        if fd < 0 && errno == ENOENT {
            // The data folder is made by whoever runs first; a client may be earlier.
            try? FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                     withIntermediateDirectories: true)
            fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        }
        guard fd >= 0 else {
            problem = "\(path): \(String(cString: strerror(errno)))"
            return nil
        }
        defer { close(fd) }
        guard flock(fd, LOCK_EX) == 0 else {
            problem = "\(path): cannot lock: \(String(cString: strerror(errno)))"
            return nil
        }
        defer { flock(fd, LOCK_UN) }
        let clock = BootClock()
        var stored = [Int64](repeating: 0, count: window.limit + 1)
        let read = stored.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        // The file: the pause's end (0: none), then the grants, oldest first. A shorter or foreign file counts as empty.
        let values = read > 0 ? Array(stored.prefix(read / MemoryLayout<Int64>.size)) : []
        window.restore(pausedUntil: values.first.flatMap { $0 > 0 ? clock.instant($0) : nil },
                       granted: values.dropFirst().filter { $0 > 0 }.map(clock.instant))
        let result = body(&window, clock.now)
        var out = [window.pausedUntil.map(clock.nanoseconds) ?? 0] + window.granted.map(clock.nanoseconds)
        let written = out.withUnsafeMutableBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        if written == out.count * MemoryLayout<Int64>.size { _ = ftruncate(fd, off_t(written)) }
        return result
    }
}

/// One reading of CLOCK_BOOTTIME beside ContinuousClock, to turn file times into instants and back.
private struct BootClock {
    let now = ContinuousClock.now
    let nanos: Int64

    init() {
        var ts = timespec()
        clock_gettime(CLOCK_BOOTTIME, &ts)
        nanos = Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    func instant(_ value: Int64) -> ContinuousClock.Instant { now + .nanoseconds(value - nanos) }

    func nanoseconds(_ instant: ContinuousClock.Instant) -> Int64 {
        let (seconds, attoseconds) = (instant - now).components
        return nanos + seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
