public import CrateDomain
import Foundation
import Synchronization

/// The daemon's long library work (imports, rescans, failure retries, artwork repair), one job at a time on
/// its own thread so start-up, requests and playback never wait for it. Progress goes out as `library` events.
public final class LibraryJobs: Sendable {
    public struct Job: Sendable, Hashable, Codable {
        public enum State: String, Sendable, Codable { case running, done, failed }
        public var kind: String
        public var state: State
        public var progress: ImportProgress?
        public var report: ImportReport?
        /// The report of a `loudness` job (`report` is for imports and rescans).
        public var loudness: LoudnessScanReport?
        public var error: String?
    }

    /// The answer that starts or reports a job (`POST library/import`, `GET library/status`'s `job`): the CLI follows it.
    public struct Started: Sendable, Codable {
        public var job: Job?
        public init(job: Job?) { self.job = job }
    }

    private struct Status {
        var job: Job?
        var artwork = ArtworkRepairStatus()
    }

    private let library: LibraryService
    private let events: EventBus
    private let status = Mutex(Status())

    public init(library: LibraryService, events: EventBus) {
        self.library = library
        self.events = events
    }

    /// The current or last job.
    public var job: Job? { status.withLock { $0.job } }
    public var artworkRepair: ArtworkRepairStatus { status.withLock { $0.artwork } }

    /// What the daemon does at launch, in the background: rescan (the import folder, the reference roots and
    /// the missing-file check), then the capped artwork repair.
    public func launch() throws {
        try start("rescan") { library, progress in
            let report = try library.rescan(progress: progress)
            self.repairArtwork()
            return report
        }
    }

    public func rescan() throws {
        try start("rescan") { library, progress in try library.rescan(progress: progress) }
    }

    public func importPaths(_ paths: [String], mode: ImportMode?, deleteOriginals: Bool?) throws {
        try start("import") { library, progress in
            try library.importPaths(paths, mode: mode, deleteOriginals: deleteOriginals, progress: progress)
        }
    }

    public func retryFailures() throws {
        try start("retry") { library, progress in try library.retryFailures(progress: progress) }
    }

    /// A loudness scan (`crate loudness scan`): progress as for imports, the report in the job's `loudness`.
    public func loudnessScan(_ request: LoudnessScanRequest) throws {
        try run("loudness") { library, progress in
            let report = try library.loudness.scan(request, progress: progress)
            return ({ $0.loudness = report },
                    "\(report.tracksMeasured) tracks and \(report.albumsMeasured) albums measured, \(report.failureCount) failures")
        }
    }

    /// Runs `work` on a new thread unless a job is running (then `LibraryError.busy`).
    private func start(_ kind: String, _ work: @escaping @Sendable (LibraryService, @escaping (ImportProgress) -> Void) throws -> ImportReport) throws {
        try run(kind) { library, progress in
            let report = try work(library, progress)
            return ({ $0.report = report },
                    "\(report.imported) imported, \(report.duplicateCount) duplicates, \(report.failureCount) failures")
        }
    }

    /// Runs `work` on a new thread unless a job is running (then `LibraryError.busy`). `work` answers how to record
    /// its report in the job and the line the `done` event says.
    private func run(_ kind: String, _ work: @escaping @Sendable (LibraryService, @escaping (ImportProgress) -> Void) throws
        -> (record: @Sendable (inout Job) -> Void, summary: String)) throws {
        try status.withLock { s in
            if let job = s.job, job.state == .running { throw LibraryError.busy("a library \(job.kind)") }
            s.job = Job(kind: kind, state: .running)
        }
        events.publish(.library(.job(kind: kind, phase: .started)))
        let library = self.library
        WorkerThread.start(name: "crate-library") { [self] in
            var lastEvent = Date.distantPast
            do {
                let (record, summary) = try work(library) { progress in
                    self.status.withLock { $0.job?.progress = progress }
                    // At most a few events a second: clients re-read the status for detail.
                    if Date().timeIntervalSince(lastEvent) >= 0.25 {
                        lastEvent = Date()
                        self.events.publish(.library(.job(kind: kind, phase: .progress(done: progress.done, total: progress.total))))
                    }
                }
                status.withLock { s in
                    s.job?.state = .done
                    if s.job != nil { record(&s.job!) }
                }
                events.publish(.library(.job(kind: kind, phase: .done(summary: summary))))
            } catch {
                status.withLock { $0.job?.state = .failed; $0.job?.error = ErrorText.describe(error) }
                events.publish(.library(.job(kind: kind, phase: .failed(reason: ErrorText.describe(error)))))
            }
        }
    }

    /// The capped, throttled artwork repair (runs on the calling thread).
    func repairArtwork() {
        let limit = library.settings.artworkRepairLimit
        guard limit > 0 else { return }
        let final = library.repairArtwork(limit: limit) { s in self.status.withLock { $0.artwork = s } }
        if final.checked > 0 {
            events.publish(.library(.artworkRepair(filled: final.filled, checked: final.checked, remaining: final.remaining)))
        }
    }
}
