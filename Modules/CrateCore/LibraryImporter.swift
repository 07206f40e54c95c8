import CrateDomain
import CrateStorage
import Foundation

/// What one import run did.
public struct ImportReport: Sendable, Codable {
    public var root: String
    public var summary: ScanSummary
    public var failures: [ScanFailure]
    public var seconds: Double
}

extension CrateRuntime {
    /// Scans `path` in place with the source that claims `file:` and saves each folder as it is read.
    /// Unreadable files are recorded (see `store.scanFailures()`) and the scan goes on.
    public func importFolder(_ path: String, progress: (ScanBatch) -> Void = { _ in }) throws -> ImportReport {
        let started = Date()
        guard let scanner = try sources.plugin(forScheme: "file") as? any ScanningSource else {
            throw RegistryError.noSource(scheme: "file")
        }
        let root = URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
            .standardizedFileURL
        var failures: [ScanFailure] = []
        let summary = try scanner.scan(root, decoders: decoders, options: ScanOptions()) { batch in
            try store.save(batch)
            failures += batch.failures
            progress(batch)
        }
        for f in failures { logger.warning("import: \(f.path): \(f.reason)") }
        logger.info("import \(root.path): \(summary.tracksRead) tracks, \(summary.failures) failures")
        return ImportReport(root: root.path, summary: summary, failures: failures,
                            seconds: Date().timeIntervalSince(started))
    }
}
