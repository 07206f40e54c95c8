public import CrateDomain
import CrateLoudness
import CrateStorage
import Foundation
import Logging
import Synchronization

/// What `crate loudness scan` measures.
public struct LoudnessScanRequest: Sendable, Hashable, Codable {
    /// Files or folders (absolute); empty: the whole library.
    public var paths: [String]
    /// Widen the selection to the whole albums of the tracks selected, so each gets an album value.
    public var albums: Bool
    /// Measure again what has a current measurement.
    public var force: Bool

    public init(paths: [String] = [], albums: Bool = false, force: Bool = false) {
        self.paths = paths
        self.albums = albums
        self.force = force
    }
}

/// What a loudness scan did. Lists are capped; the counts are complete.
public struct LoudnessScanReport: Sendable, Hashable, Codable {
    public static let listCap = 500

    public struct AlbumResult: Sendable, Hashable, Codable {
        public var albumID: Int64
        public var title: String
        public var artist: String
        public var measurement: LoudnessMeasurement
    }

    public var paths: [String]
    public var tracksMeasured = 0
    public var albumsMeasured = 0
    /// Tracks left alone: measured already, files unchanged since.
    public var tracksCurrent = 0
    /// Albums whose album value was current already.
    public var albumsCurrent = 0
    /// Albums of selected tracks not measured as a whole: only some of their tracks were selected (`--album` widens),
    /// or some of their tracks are missing.
    public var albumsPartial = 0
    public var failureCount = 0
    public var failures: [ScanFailure] = []
    public var albums: [AlbumResult] = []
    /// Seconds of audio measured.
    public var audioSeconds = 0.0
    /// Wall-clock seconds of the scan.
    public var seconds = 0.0
    /// Tracks measured at once.
    public var workers = 1

    public init(paths: [String]) { self.paths = paths }
}

/// Loudness scans: EBU R128 integrated loudness and true peak of library files, per track and per album (libebur128,
/// through CrateLoudness), stored in the library and never written to the files. Decoding goes through the decoder
/// registry, so every format a decoder plugin reads can be measured.
public struct LoudnessService: Sendable {
    let store: LibraryStore
    let decoders: DecoderRegistry
    let logger: Logger
    /// Tracks measured at once (default: one per core).
    public var workers = ProcessInfo.processInfo.activeProcessorCount

    /// How much of the library has loudness information.
    public func summary() throws -> LoudnessSummary { try store.loudnessSummary() }

    /// An album's loudness values, its tracks' in album order.
    public func album(id: Int64) throws -> AlbumLoudnessInfo {
        guard let info = try store.albumLoudness(albumID: id) else { throw StoreError.albumNotFound(String(id)) }
        return info
    }

    /// The gains the player would apply to a track (for display and tests).
    public func loudness(trackID: Int64) throws -> TrackLoudness { try store.loudness(trackID: trackID) }

    /// Measures what `request` selects and stores the results; `progress` after each track.
    public func scan(_ request: LoudnessScanRequest, progress: ((ImportProgress) -> Void)? = nil) throws -> LoudnessScanReport {
        let started = Date()
        let paths = request.paths.map(Self.absolute)
        var report = LoudnessScanReport(paths: paths)
        let plan = try plan(LoudnessScanRequest(paths: paths, albums: request.albums, force: request.force), into: &report)
        let total = plan.groups.reduce(0) { $0 + $1.tracks.count }
        report.workers = min(max(1, workers), max(1, total))

        struct Running {
            var report: LoudnessScanReport
            var done = 0
            var lastPath = ""
        }
        let running = Mutex(Running(report: report))
        let store = self.store, logger = self.logger
        let decoders = self.decoders
        // Called one outcome at a time by the scanner (never concurrently), from its worker threads.
        nonisolated(unsafe) let watch = progress
        let scanner = LoudnessScanner(workers: workers) { url in try decoders.open(url) }
        scanner.run(plan.groups) { outcome in
            let update: ImportProgress? = running.withLock { state in
                switch outcome {
                case let .track(id, _, result):
                    guard let candidate = plan.candidates[id] else { return nil }
                    state.done += 1
                    state.lastPath = candidate.path
                    switch result {
                    case .success(let m):
                        do {
                            try store.saveTrackLoudness(trackID: id, m, size: candidate.size, mtime: candidate.mtime)
                            state.report.tracksMeasured += 1
                            state.report.audioSeconds += m.seconds
                        } catch {
                            Self.fail(&state.report, path: candidate.path, reason: "cannot save: \(ErrorText.describe(error))")
                        }
                    case .failure(let error):
                        logger.warning("loudness: \(candidate.path): \(error.description)")
                        Self.fail(&state.report, path: candidate.path, reason: error.description)
                    }
                    let r = state.report
                    return ImportProgress(done: state.done, total: total, imported: r.tracksMeasured, duplicates: 0,
                                          failures: r.failureCount, unchanged: r.tracksCurrent, folder: candidate.path,
                                          elapsed: Date().timeIntervalSince(started))
                case let .album(id, tracks, result):
                    switch result {
                    case .success(let m):
                        do {
                            try store.saveAlbumLoudness(albumID: id, m, tracks: tracks)
                            state.report.albumsMeasured += 1
                            if state.report.albums.count < LoudnessScanReport.listCap, let album = plan.albums[id] {
                                state.report.albums.append(.init(albumID: id, title: album.title, artist: album.artist, measurement: m))
                            }
                        } catch {
                            Self.fail(&state.report, path: "album \(id)", reason: "cannot save: \(ErrorText.describe(error))")
                        }
                    case .failure(let error):
                        let name = plan.albums[id].map { "\($0.artist) — \($0.title)" } ?? "album \(id)"
                        logger.warning("loudness: \(name): no album value: \(error.description)")
                    }
                    return nil
                }
            }
            if let update { watch?(update) }
        }
        report = running.withLock { $0.report }
        report.seconds = Date().timeIntervalSince(started)
        return report
    }

    /// What to measure: groups of tracks, whole albums where the album value is to be measured.
    struct Plan {
        var groups: [LoudnessScanGroup] = []
        var candidates: [Int64: LoudnessCandidate] = [:]
        var albums: [Int64: (title: String, artist: String)] = [:]
    }

    /// An album is measured as a whole (every track, measured or not, since its value comes from all their meters
    /// together) when all its tracks are selected — a folder holding the album, or the whole library — or `albums`
    /// asks for it, and its album value is not current (or `force`). The other selected tracks are measured alone
    /// unless current.
    func plan(_ request: LoudnessScanRequest, into report: inout LoudnessScanReport) throws -> Plan {
        let selected = try store.loudnessCandidates(under: request.paths)
        if selected.isEmpty, let path = request.paths.first { throw LibraryError.notInLibrary(path: path) }
        var plan = Plan()
        let selectedIDs = Set(selected.map(\.trackID))
        var albumOrder: [Int64] = []
        var seen = Set<Int64>()
        for c in selected where seen.insert(c.albumID).inserted { albumOrder.append(c.albumID) }
        let members = Dictionary(grouping: try store.loudnessCandidates(albums: seen), by: \.albumID)
        let trackCounts = try store.albumTrackCounts(seen)
        let current = try store.albumsWithCurrentLoudness()
        let bySelection = Dictionary(grouping: selected, by: \.albumID)
        for albumID in albumOrder {
            let tracks = members[albumID] ?? []
            let whole = tracks.count == trackCounts[albumID] && !tracks.contains(where: \.missing)
                && (request.albums || tracks.allSatisfy { selectedIDs.contains($0.trackID) })
            if whole, !request.force, current.contains(albumID) {
                report.albumsCurrent += 1
                report.tracksCurrent += bySelection[albumID]?.count ?? 0
                continue
            }
            if whole {
                plan.groups.append(LoudnessScanGroup(albumID: albumID, tracks: tracks.map(Self.item)))
                for t in tracks { plan.candidates[t.trackID] = t }
                if let album = try store.album(id: albumID) { plan.albums[albumID] = (album.title, album.artist) }
                continue
            }
            report.albumsPartial += 1
            var alone: [LoudnessCandidate] = []
            for t in bySelection[albumID] ?? [] {
                if t.missing {
                    Self.fail(&report, path: t.path, reason: "the file is missing (crate missing)")
                } else if t.measured && !request.force {
                    report.tracksCurrent += 1
                } else {
                    alone.append(t)
                    plan.candidates[t.trackID] = t
                }
            }
            if !alone.isEmpty { plan.groups.append(LoudnessScanGroup(albumID: nil, tracks: alone.map(Self.item))) }
        }
        return plan
    }

    private static func item(_ c: LoudnessCandidate) -> LoudnessScanGroup.Item {
        LoudnessScanGroup.Item(id: c.trackID, url: URL(fileURLWithPath: c.path, isDirectory: false))
    }

    private static func fail(_ report: inout LoudnessScanReport, path: String, reason: String) {
        report.failureCount += 1
        if report.failures.count < LoudnessScanReport.listCap { report.failures.append(ScanFailure(path: path, reason: reason)) }
    }

    /// A path as the library stores it: absolute (against the working directory) and standardized; a folder
    /// without its trailing slash.
    static func absolute(_ path: String) -> String {
        let url = URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
            .standardizedFileURL
        var result = url.path
        while result.count > 1, result.hasSuffix("/") { result.removeLast() }
        return result
    }
}

extension LibraryService {
    /// Loudness scans and values (`crate loudness`).
    public var loudness: LoudnessService { LoudnessService(store: store, decoders: decoders, logger: logger) }
}
