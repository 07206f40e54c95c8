import CrateDomain
public import CrateFeeds
public import CrateStorage
import Foundation
public import Logging

/// The Crate Wall and genre feeds for the front ends (ADR-115, ADR-118): builds the signals from whatever
/// sources are there (the library, the Apple catalog, both), keeps the wall for the service's lifetime
/// (the daemon's), regenerates it on a dial change after a 1 s pause, and runs the like/dislike loop.
public actor FeedService {
    /// Albums per page of the wall and of genre feeds.
    public static let pageSize = 40
    public static let dialSetting = "feeds.dial"
    /// The quiet time after a dial change before the wall is regenerated (ADR-115: a slider is dragged).
    public let debounce: Duration

    let store: LibraryStore
    let catalog: CatalogService
    let logger: Logger
    let events: EventBus?
    private var wall: FeedState?
    private var genreFeed: FeedState?

    /// A disliked album leaves the kept wall and genre feed at once (not only at the next regeneration).
    func dropFromKeptFeeds(_ album: Album) {
        let key = FeedKey.of(album)
        wall?.entries.removeAll { FeedKey.of($0.album) == key }
        genreFeed?.entries.removeAll { FeedKey.of($0.album) == key }
    }
    private var regeneration: Task<Void, Never>?
    /// The wall being composed, and which regeneration it is (the newest one wins).
    private var pendingWall: (generation: Int, task: Task<FeedState, Never>)?
    private var generation = 0
    private var seeds: SplitMix64

    /// One feed as far as it has been scrolled.
    struct FeedState {
        let composer: WallComposer
        let genre: GenreSelection?
        let dial: CrateDial
        var entries: [WallEntry]
        var contributions: [SignalID: [String: Int]]
        var last: WallResult
        var pages: Int
        let generatedAt: Date
    }

    public init(store: LibraryStore, catalog: CatalogService, logger: Logger, events: EventBus? = nil,
                seed: UInt64? = nil, debounce: Duration = .seconds(1)) {
        self.store = store
        self.catalog = catalog
        self.logger = logger
        self.events = events
        self.debounce = debounce
        seeds = SplitMix64(seed: seed ?? UInt64.random(in: .min ... .max))
    }

    // MARK: - The dial

    /// The stored position; Mixed Crate when none is stored, or when what is stored is not a position.
    public func dial() -> CrateDial {
        do {
            guard let text = try store.setting(Self.dialSetting) else { return .default }
            if let dial = CrateDial(parsing: text) { return dial }
            logger.warning("feeds: stored dial '\(text)' is not a position; using \(CrateDial.default.rawValue)")
        } catch {
            logger.warning("feeds: cannot read the dial: \(ErrorText.describe(error))")
        }
        return .default
    }

    /// Stores the position and (unless told not to) regenerates the wall once the dial has been still for
    /// `debounce`, so dragging a slider across five positions composes one wall, not five.
    @discardableResult
    public func setDial(_ text: String, regenerate: Bool = true) throws -> CrateDial {
        guard let dial = CrateDial(parsing: text) else { throw FeedError.unknownDial(text) }
        try store.setSetting(Self.dialSetting, dial.rawValue)
        events?.publish(.feeds(.dial(dial)))
        regeneration?.cancel()
        guard regenerate else { return dial }
        let pause = debounce
        regeneration = Task { [weak self] in
            do { try await Task.sleep(for: pause) } catch { return }
            await self?.regenerateWall(reason: "dial \(dial.rawValue)")
        }
        return dial
    }

    /// Waits for a pending dial regeneration (tests).
    public func settle() async {
        await regeneration?.value
    }

    // MARK: - The wall

    /// The wall as far as it has been scrolled; composed on first use. A wall being composed (the daemon
    /// starts one at launch) is waited for rather than composed twice.
    public func wall(artworkSize: Int = 300) async -> FeedPage {
        if wall == nil, let pending = pendingWall {
            let state = await pending.task.value
            if wall == nil { wall = state }
        }
        if wall == nil { return await regenerateWall(reason: "first use", artworkSize: artworkSize) }
        return page(of: wall, artworkSize: artworkSize)
    }

    /// The start of the wall as it stands, neither composed nor waited for: its first `count` albums and how many
    /// it holds (scrolled far, a thousand and more); nil until the first one is composed. For the web page's first
    /// screen, which must not wait on the signals (the page then asks for the wall itself).
    public func composedWall(first count: Int, artworkSize: Int) -> (entries: [FeedEntry], total: Int)? {
        wall.map { state in (state.entries.prefix(count).map { FeedEntry($0, artworkSize: artworkSize) }, state.entries.count) }
    }

    /// The artwork of the kept wall's library albums, in wall order (the daemon makes their thumbnails ahead).
    public func wallArtworkHashes() -> [String] {
        wall?.entries.compactMap { $0.album.isLibraryAlbum ? $0.album.artworkHash : nil } ?? []
    }

    /// A fresh wall (start-up, dial change, or asked for). When several overlap, the newest is kept.
    @discardableResult
    public func regenerateWall(reason: String = "asked for", artworkSize: Int = 300) async -> FeedPage {
        let dial = dial()
        generation += 1
        let mine = generation
        let task = Task { await self.compose(genre: nil, dial: dial) }
        pendingWall = (mine, task)
        let state = await task.value
        guard mine == generation else { return page(of: state, artworkSize: artworkSize) }
        wall = state
        pendingWall = nil
        logger.debug("feeds: wall composed (\(reason)) on \(dial.rawValue): \(state.entries.count) albums from \(state.last.contributions.count) signal sources, \(state.last.failures.count) failed")
        events?.publish(.feeds(.wall(dial)))
        return page(of: wall, artworkSize: artworkSize)
    }

    /// One more page of the wall, without repeats (infinite scroll). The answer holds that page's albums only, so
    /// its size stays the same however far the wall has been scrolled.
    public func moreWall(excluding: Set<String> = [], artworkSize: Int = 300) async throws -> FeedPage {
        guard let composer = wall?.composer else { throw FeedError.noWallYet }
        let result = await composer.fetchMore(excluding: excluding)
        // Read the state again after the wait: another page may have landed, or a new wall replaced this one.
        if var state = wall, state.composer === composer {
            absorb(result, into: &state)
            wall = state
        }
        return page(of: wall, artworkSize: artworkSize, only: result)
    }

    // MARK: - Genre feeds

    /// The genre feed for a super-genre and optional subcategories; a new selection starts a new feed.
    public func genre(_ name: String, subcategories: [String] = [], more: Bool = false,
                      artworkSize: Int = 300) async throws -> FeedPage {
        let selection = try CatalogService.selection(name, subcategories)
        if more, let composer = genreFeed?.composer, genreFeed?.genre == selection {
            let result = await composer.fetchMore()
            if var state = genreFeed, state.composer === composer {
                absorb(result, into: &state)
                genreFeed = state
            }
            return page(of: genreFeed, artworkSize: artworkSize, only: result)
        } else if more {
            throw FeedError.noGenreFeed
        } else {
            genreFeed = await compose(genre: selection, dial: dial())
        }
        return page(of: genreFeed, artworkSize: artworkSize)
    }

    // MARK: - Composing

    private func compose(genre: GenreSelection?, dial: CrateDial) async -> FeedState {
        let composer = WallComposer()
        let (signals, excluded) = await signals(for: genre == nil ? SignalID.wall : SignalID.genre)
        let weights = genre == nil ? dial.wallWeights : dial.genreWeights
        let result = await composer.compose(signals: signals, weights: weights, total: Self.pageSize,
                                            context: FeedContext(seed: seeds.next(), excluded: excluded, genre: genre))
        var state = FeedState(composer: composer, genre: genre, dial: dial, entries: [], contributions: [:],
                              last: result, pages: 0, generatedAt: Date())
        absorb(result, into: &state)
        return state
    }

    private func absorb(_ result: WallResult, into state: inout FeedState) {
        state.entries += result.entries
        state.last = result
        state.pages += 1
        for c in result.contributions { state.contributions[c.signal, default: [:]][c.source, default: 0] += c.count }
        for f in result.failures { logger.debug("feeds: \(f.signal.title) (\(f.source)) failed: \(f.message)") }
    }

    /// The signals of every live source, and the keys of disliked albums (both sources).
    func signals(for ids: [SignalID]) async -> (signals: [any WallSignal], excluded: Set<String>) {
        var facts: [AlbumFacts] = []
        do {
            facts = try store.albumFacts()
        } catch {
            logger.warning("feeds: cannot read the library: \(ErrorText.describe(error))")
        }
        // One snapshot places every album's genres once, for the local signals and the profile alike.
        let snapshot = LocalSnapshot(facts: facts)
        let local: (snapshot: LocalSnapshot, library: any LocalAlbumLibrary)? =
            facts.isEmpty ? nil : (snapshot, StoreFeedLibrary(store: store))
        var catalogLiked: [Album] = []
        var excluded: Set<String> = []
        do {
            catalogLiked = try store.catalogAlbums(.favorite)
            excluded = Set(try store.catalogAlbums(.dislike).map(FeedKey.of))
        } catch {
            logger.warning("feeds: cannot read catalog likes: \(ErrorText.describe(error))")
        }
        let feedCatalog = (try? catalog.client()).map { MusicFeedCatalog(client: $0) }
        let profile = FeedProfile.make(snapshot: snapshot, catalogFavorites: catalogLiked)
        return (FeedSignals.make(ids, local: local, catalog: feedCatalog, profile: profile), excluded)
    }

    /// The feed as a page: every album so far, or with `only` just that newest page's albums.
    private func page(of state: FeedState?, artworkSize: Int, only newest: WallResult? = nil) -> FeedPage {
        guard let state else {
            return FeedPage(dial: dial().rawValue, genre: nil, subcategories: [], entries: [], contributions: [], failures: [],
                            explanation: "No feed yet.", pages: 0, newest: 0, generatedAt: Date())
        }
        let contributions = state.contributions.sorted { $0.key < $1.key }.flatMap { signal, bySource in
            bySource.sorted { $0.key < $1.key }.map { FeedPage.Contribution(signal: signal.rawValue, source: $0.key, count: $0.value) }
        }
        return FeedPage(
            dial: state.dial.rawValue, genre: state.genre?.superGenre.name, subcategories: state.genre?.subcategories.map(\.name) ?? [],
            entries: (newest?.entries ?? state.entries).map { FeedEntry($0, artworkSize: artworkSize) },
            contributions: contributions,
            failures: state.last.failures.map { FeedPage.Failure(signal: $0.signal.rawValue, source: $0.source, message: $0.message) },
            explanation: explain(state),
            pages: state.pages, newest: (newest ?? state.last).entries.count, generatedAt: state.generatedAt)
    }

    /// Why a feed is short; for an empty one also why the catalog gave nothing (its signals are not even tried
    /// without a catalog, so the composer alone would only say that no signal had a weight).
    private func explain(_ state: FeedState) -> String? {
        let composed = state.last.explanation ?? (state.entries.isEmpty ? "No albums: import music or set up the catalog." : nil)
        guard state.entries.isEmpty, let composed else { return composed }
        do {
            _ = try catalog.client()
            return composed
        } catch {
            return "\(composed) The catalog is unavailable: \(ErrorText.describe(error))."
        }
    }

    /// The album on a current feed with this reference (no catalog request needed to like it).
    func shown(_ ref: String) -> Album? {
        for state in [wall, genreFeed].compactMap({ $0 }) {
            if let entry = state.entries.first(where: { FeedAlbumRef.text($0.album) == ref }) { return entry.album }
        }
        return nil
    }
}
