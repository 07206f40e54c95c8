import CrateDomain
import CrateFeeds
import Foundation

/// An album with a catalog id (`catalog: true`) or a library identity.
func album(_ key: String, source: String = "applemusic", catalog: Bool = true, opinion: Opinion? = nil) -> Album {
    Album(id: 0, identity: catalog ? "applemusic:\(key)" : key, title: "Album \(key)", artist: "Artist", date: nil,
          year: nil, genre: nil, isCompilation: false, trackCount: 10, discCount: 1, duration: 2400,
          addedAt: Date(timeIntervalSince1970: 0), opinion: opinion, source: source,
          externalID: catalog ? key : nil)
}

func albums(_ prefix: String, _ count: Int) -> [Album] {
    (0..<count).map { album("\(prefix)\($0)") }
}

struct FakeError: Error, CustomStringConvertible {
    var description: String
}

/// A signal with a fixed list; skips excluded keys unless told to ignore them (to test the composer's memory).
struct FakeSignal: WallSignal {
    let id: SignalID
    let source: String
    let albums: [Album]
    var error: FakeError?
    var honorsExcluded = true

    init(_ id: SignalID, _ source: String = SignalSource.catalog, _ albums: [Album], error: String? = nil,
         honorsExcluded: Bool = true) {
        self.id = id
        self.source = source
        self.albums = albums
        self.error = error.map(FakeError.init)
        self.honorsExcluded = honorsExcluded
    }

    func candidates(limit: Int, context: FeedContext) async throws -> [Album] {
        if let error { throw error }
        let offered = honorsExcluded ? albums.filter { !context.excluded.contains(FeedKey.of($0)) } : albums
        return Array(offered.prefix(limit))
    }
}

/// Opens once; everyone waiting (before or after) goes on.
actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters = []
    }
}

/// Reports that it started, then waits on the gate before answering.
struct GatedSignal: WallSignal {
    let id: SignalID
    let source = SignalSource.catalog
    let gate: Gate
    let started: AsyncStream<SignalID>.Continuation
    let albums: [Album]

    func candidates(limit: Int, context: FeedContext) async throws -> [Album] {
        started.yield(id)
        await gate.wait()
        return Array(albums.prefix(limit))
    }
}

/// A wall with every signal present and plenty of albums, each signal with its own keys.
func fullWall(failing: Set<SignalID> = [], count: Int = 200) -> [any WallSignal] {
    SignalID.wall.map { id in
        FakeSignal(id, SignalSource.catalog, albums(id.rawValue + "-", count),
                   error: failing.contains(id) ? "\(id.rawValue) unavailable" : nil)
    }
}
