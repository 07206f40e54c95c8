public import CrateDomain
public import Foundation

/// Tracks to measure, and whether they make up an album measured as a whole.
public struct LoudnessScanGroup: Sendable, Hashable {
    public struct Item: Sendable, Hashable {
        public var id: Int64
        public var url: URL

        public init(id: Int64, url: URL) {
            self.id = id
            self.url = url
        }
    }

    /// The album these tracks make up (every one of its tracks), measured from their meters together; nil when only
    /// the tracks are measured.
    public var albumID: Int64?
    public var tracks: [Item]

    public init(albumID: Int64?, tracks: [Item]) {
        self.albumID = albumID
        self.tracks = tracks
    }
}

/// What the scan reports, one at a time: each track, and each album after its last track.
public enum LoudnessScanOutcome: Sendable {
    case track(id: Int64, albumID: Int64?, Result<LoudnessMeasurement, LoudnessError>)
    /// `tracks`: how many tracks the album was measured from.
    case album(id: Int64, tracks: Int, Result<LoudnessMeasurement, LoudnessError>)
}

/// Measures tracks on `workers` threads at once (every core by default: decoding and the true-peak filter are the
/// work), in the order given, and an album from its tracks' meters as soon as its last track is done. Only the meters
/// of albums in progress are kept: with tracks in album order, about one album per worker.
public struct LoudnessScanner: Sendable {
    public let workers: Int
    let open: @Sendable (URL) throws -> any AudioDecoder

    /// `open` makes a decoder for a file (Core passes the decoder registry's).
    public init(workers: Int = ProcessInfo.processInfo.activeProcessorCount, open: @escaping @Sendable (URL) throws -> any AudioDecoder) {
        self.workers = max(1, workers)
        self.open = open
    }

    /// Runs the scan on the calling thread and `workers - 1` more; returns when every track is measured or
    /// `shouldStop` said so (checked before each track). `deliver` is called one outcome at a time, never
    /// concurrently, each track's before its album's.
    public func run(_ groups: [LoudnessScanGroup], shouldStop: @escaping @Sendable () -> Bool = { false },
                    deliver: @escaping @Sendable (LoudnessScanOutcome) -> Void) {
        let work = ScanWork(groups)
        guard work.total > 0 else { return }
        let open = self.open
        DispatchQueue.concurrentPerform(iterations: min(workers, work.total)) { _ in
            while !shouldStop(), let (group, index) = work.next() {
                let item = groups[group].tracks[index]
                let result: Result<LoudnessMeter, LoudnessError>
                do {
                    let decoder = try open(item.url)
                    result = .success(try LoudnessMeter.measure(decoder))
                } catch let error as LoudnessError {
                    result = .failure(error)
                } catch {
                    result = .failure(LoudnessError(ErrorText.describe(error)))
                }
                work.finish(group: group, index: index, result, deliver: deliver)
            }
        }
    }
}

/// The shared state of one scan: which track is next, and the meters of albums not finished yet.
private final class ScanWork: @unchecked Sendable {
    private let lock = NSLock()
    private let groups: [LoudnessScanGroup]
    private var order: [(group: Int, index: Int)] = []
    private var nextIndex = 0
    private var meters: [[LoudnessMeter?]]
    private var remaining: [Int]
    private var failed: [Bool]

    init(_ groups: [LoudnessScanGroup]) {
        self.groups = groups
        for (g, group) in groups.enumerated() {
            for i in group.tracks.indices { order.append((g, i)) }
        }
        meters = groups.map { [LoudnessMeter?](repeating: nil, count: $0.albumID == nil ? 0 : $0.tracks.count) }
        remaining = groups.map(\.tracks.count)
        failed = groups.map { _ in false }
    }

    var total: Int { order.count }

    func next() -> (Int, Int)? {
        lock.lock()
        defer { lock.unlock() }
        guard nextIndex < order.count else { return nil }
        defer { nextIndex += 1 }
        return order[nextIndex]
    }

    /// Records a track and, when it was its album's last, measures the album; delivers both under the lock, so the
    /// receiver sees one outcome at a time.
    func finish(group g: Int, index: Int, _ result: Result<LoudnessMeter, LoudnessError>,
                deliver: (LoudnessScanOutcome) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        let group = groups[g]
        let item = group.tracks[index]
        deliver(.track(id: item.id, albumID: group.albumID, result.map(\.measurement)))
        switch result {
        case .success(let meter): if group.albumID != nil { meters[g][index] = meter }
        case .failure: failed[g] = true
        }
        remaining[g] -= 1
        guard remaining[g] == 0, let albumID = group.albumID else { return }
        let complete = meters[g].compactMap { $0 }
        meters[g] = []
        if failed[g] {
            deliver(.album(id: albumID, tracks: group.tracks.count,
                           .failure(LoudnessError("not every track of the album could be measured"))))
        } else {
            deliver(.album(id: albumID, tracks: group.tracks.count, Result { try LoudnessMeter.combined(complete) }
                .mapError { $0 as? LoudnessError ?? LoudnessError(String(describing: $0)) }))
        }
    }
}
