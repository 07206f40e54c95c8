import CrateDomain
import CrateFeeds
import Foundation
import CrateStorage

/// What `crate feed diagnose` reports: the rules the feeds rely on, each signal tried once, and the
/// library's genre tags the taxonomy does not know.
public struct FeedDiagnosis: Sendable, Codable {
    public struct Check: Sendable, Codable, Hashable {
        public var name: String
        public var ok: Bool
        public var detail: String
    }

    public struct SignalState: Sendable, Codable, Hashable {
        /// `wall` or the genre tried.
        public var feed: String
        public var signal: String
        public var source: String
        public var albums: Int
        public var error: String?
        public var live: Bool { error == nil && albums > 0 }
    }

    public struct UnmappedGenre: Sendable, Codable, Hashable {
        public var tag: String
        public var albums: Int
    }

    public var dial: String
    public var checks: [Check]
    public var signals: [SignalState]
    public var unmappedGenres: [UnmappedGenre]
    public var ok: Bool { checks.allSatisfy(\.ok) }
}

extension FeedService {
    /// Runs every check; each signal is asked for a few albums (catalog signals make their requests).
    public func diagnose(probeSize: Int = 5) async -> FeedDiagnosis {
        var checks: [FeedDiagnosis.Check] = []
        do {
            let problems = try store.opinionSelfTest()
            checks.append(.init(name: "likes and dislikes persist, one opinion per album", ok: problems.isEmpty,
                                detail: problems.isEmpty ? "a like and then a dislike read back in both tables (rolled back)" : problems.joined(separator: "; ")))
            let favorites = try store.favorites()
            let liked = Set(favorites.albums.map(FeedKey.of)), disliked = Set(favorites.dislikedAlbums.map(FeedKey.of))
            let both = liked.intersection(disliked)
            checks.append(.init(name: "like and dislike exclude each other", ok: both.isEmpty,
                                detail: both.isEmpty ? "\(liked.count) liked, \(disliked.count) disliked, none both" : "liked and disliked: \(both.sorted().joined(separator: ", "))"))
        } catch {
            checks.append(.init(name: "likes and dislikes persist, one opinion per album", ok: false, detail: ErrorText.describe(error)))
        }
        checks += Self.tableChecks()
        var facts: [AlbumFacts] = []
        do {
            facts = try store.albumFacts()
        } catch {
            checks.append(.init(name: "the library's albums can be read", ok: false, detail: ErrorText.describe(error)))
        }

        let snapshot = LocalSnapshot(facts: facts)
        let selection = preferredGenre(snapshot)
        var states: [FeedDiagnosis.SignalState] = []
        for (feed, ids, genre) in [("wall", SignalID.wall, nil as GenreSelection?), (selection.superGenre.name, SignalID.genre, selection)] {
            let (signals, excluded) = await signals(for: ids)
            let context = FeedContext(seed: 1, excluded: excluded, genre: genre)
            let outcomes = await inParallel(signals.map { signal in
                { @Sendable () async -> FeedDiagnosis.SignalState in
                    do {
                        let found = try await signal.candidates(limit: probeSize, context: context)
                        return .init(feed: feed, signal: signal.id.rawValue, source: signal.source, albums: found.count, error: nil)
                    } catch {
                        return .init(feed: feed, signal: signal.id.rawValue, source: signal.source, albums: 0,
                                     error: ErrorText.describe(error))
                    }
                }
            })
            states += outcomes
        }
        let unmapped = snapshot.unmappedGenres().map { FeedDiagnosis.UnmappedGenre(tag: $0.tag, albums: $0.albums) }
        return FeedDiagnosis(dial: dial().rawValue, checks: checks, signals: states, unmappedGenres: unmapped)
    }

    /// Each table sums to 1; along the dial the personal share falls and the wild share rises.
    static func tableChecks() -> [FeedDiagnosis.Check] {
        var checks: [FeedDiagnosis.Check] = []
        for (name, table) in [("wall", \CrateDial.wallWeights), ("genre", \CrateDial.genreWeights)] as [(String, KeyPath<CrateDial, [SignalID: Double]>)] {
            let sums = CrateDial.allCases.map { $0[keyPath: table].values.reduce(0, +) }
            let bad = zip(CrateDial.allCases, sums).filter { abs($0.1 - 1) > 1e-9 }
            checks.append(.init(name: "\(name) weight tables sum to 1", ok: bad.isEmpty,
                                detail: bad.isEmpty ? "all \(sums.count) positions" : bad.map { "\($0.0.rawValue): \($0.1)" }.joined(separator: ", ")))
            let personal = CrateDial.allCases.map { CrateDial.personalWeight($0[keyPath: table]) }
            let wild = CrateDial.allCases.map { CrateDial.wildWeight($0[keyPath: table]) }
            let falls = zip(personal, personal.dropFirst()).allSatisfy { $0 > $1 }
            let rises = zip(wild, wild.dropFirst()).allSatisfy { $0 < $1 }
            checks.append(.init(name: "\(name) tables: personal falls, wild rises along the dial", ok: falls && rises,
                                detail: "personal \(personal.map { String(format: "%.2f", $0) }.joined(separator: " > ")); wild \(wild.map { String(format: "%.2f", $0) }.joined(separator: " < "))"))
        }
        return checks
    }

    /// The super-genre the listener leans to most (Rock for a new listener), to try the genre signals on.
    private func preferredGenre(_ snapshot: LocalSnapshot) -> GenreSelection {
        let liked = (try? store.catalogAlbums(.favorite)) ?? []     // unreadable: the first check says so
        let profile = FeedProfile.make(snapshot: snapshot, catalogFavorites: liked)
        let top = profile.genreAffinity.max { $0.value < $1.value }?.key
        let genre = top.flatMap(GenreTaxonomy.superGenre) ?? GenreTaxonomy.superGenres[0]
        return GenreSelection(superGenre: genre)
    }
}
