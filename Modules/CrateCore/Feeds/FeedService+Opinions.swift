public import CrateDomain
import CrateFeeds
import CrateStorage
import Foundation
import Logging

/// What a like or dislike did: the local change (always made first) and each write to the catalog.
public struct OpinionOutcome: Sendable, Codable {
    public struct Write: Sendable, Codable, Hashable {
        /// `add to library`, `love rating`, `add to favorites`, `dislike rating`.
        public var name: String
        public var ok: Bool
        /// Why it failed, or why it was not sent.
        public var message: String?
    }

    public var album: String
    public var title: String
    public var artist: String
    /// The album's opinion now: favorite, dislike, or nil when cleared.
    public var opinion: Opinion?
    public var writes: [Write]
    /// Why nothing was sent to the catalog, when nothing was.
    public var notSent: String?
}

/// The like/dislike loop (ADR-118). The local opinion is stored first and stays whatever the catalog says;
/// for catalog albums a like then adds the album to the Apple Music library, loves it and marks it a
/// favorite, all three at once (one user token, no waiting between them), and a dislike sends the dislike
/// rating. Taking a like or dislike back is local only: the Apple rating stays (the user may use the Music
/// app too). Like and dislike exclude each other because each album has one opinion.
extension FeedService {
    public func like(_ ref: String) async throws -> OpinionOutcome {
        try await setOpinion(ref, .favorite)
    }

    public func dislike(_ ref: String) async throws -> OpinionOutcome {
        try await setOpinion(ref, .dislike)
    }

    /// Clears a like (`only: .favorite`), a dislike (`only: .dislike`) or either; local only.
    public func clearOpinion(_ ref: String, only: Opinion? = nil) async throws -> OpinionOutcome {
        let album = try await resolve(ref)
        let current = try currentOpinion(album)
        if only == nil || current == only { try store(album, nil) }
        let now = try currentOpinion(album)
        events?.publish(.library(.opinion(kind: .album, id: FeedAlbumRef.text(album), now)))
        return OpinionOutcome(album: FeedAlbumRef.text(album), title: album.title, artist: album.artist, opinion: now,
                              writes: [], notSent: isCatalog(album) ? "taking an opinion back leaves the Apple Music rating as it is" : nil)
    }

    private func setOpinion(_ ref: String, _ opinion: Opinion) async throws -> OpinionOutcome {
        let album = try await resolve(ref)
        try store(album, opinion, unsent: isCatalog(album))
        if opinion == .dislike { dropFromKeptFeeds(album) }
        // The same event the favorites routes publish, so clients need one rule.
        events?.publish(.library(.opinion(kind: .album, id: FeedAlbumRef.text(album), opinion)))
        var outcome = OpinionOutcome(album: FeedAlbumRef.text(album), title: album.title, artist: album.artist,
                                     opinion: opinion, writes: [], notSent: nil)
        guard isCatalog(album), let externalID = album.externalID else { return outcome }
        let client: any MusicCatalog
        do {
            client = try catalog.client()
        } catch {
            outcome.notSent = "kept locally; it will be sent to Apple Music once the catalog works "
                + "(\(ErrorText.describe(error))): at the next like or dislike, or when crated starts"
            logger.warning("feeds: \(opinion.rawValue) of \(outcome.album) \(outcome.notSent ?? "")")
            return outcome
        }
        guard client.hasUserToken else {
            outcome.notSent = "kept locally; it will be sent to Apple Music once a user token is set "
                + "(sources.applecatalog.user_token_file or CRATE_SOURCES_APPLECATALOG_USER_TOKEN): at the next like or "
                + "dislike, or when crated starts"
            logger.warning("feeds: \(opinion.rawValue) of \(outcome.album) \(outcome.notSent ?? "")")
            return outcome
        }
        outcome.writes = await Self.writeBack(opinion, albumID: externalID, client: client)
        for write in outcome.writes where !write.ok {
            // The local opinion stays: the catalog may be down, the token may have expired; it is sent again later.
            logger.error("feeds: \(write.name) for \(album.artist) — \(album.title) (\(outcome.album)) failed: \(write.message ?? "unknown")")
        }
        if outcome.writes.allSatisfy(\.ok) { try store(album, opinion, unsent: false) }
        // What earlier likes and dislikes could not send goes now that the catalog answers.
        _ = await sendUnsent()
        return outcome
    }

    /// Sends the catalog opinions kept locally because the catalog could not take them then (no credentials, no
    /// user token, a failed write); each album's details are fetched again (a like made offline knows only its
    /// id). Returns how many were sent. Nothing happens while the catalog still cannot take them.
    @discardableResult
    public func sendUnsent() async -> Int {
        guard let pending = try? store.unsentCatalogOpinions(), !pending.isEmpty,
              let client = try? catalog.client(), client.hasUserToken else { return 0 }
        var sent = 0
        for album in pending {
            guard let id = album.externalID, let opinion = album.opinion else { continue }
            let writes = await Self.writeBack(opinion, albumID: id, client: client)
            guard writes.allSatisfy(\.ok) else {
                let reasons = writes.filter { !$0.ok }.map { "\($0.name): \($0.message ?? "failed")" }.joined(separator: "; ")
                logger.warning("feeds: \(opinion.rawValue) of \(FeedAlbumRef.text(album)) still not sent: \(reasons)")
                continue
            }
            var known = (try? await client.album(id: id).album) ?? album
            known.opinion = opinion
            // Unless the opinion changed meanwhile.
            guard (try? store.catalogOpinion(source: album.source, externalID: id)) == opinion else { continue }
            do { try store(known, opinion, unsent: false) } catch { continue }
            sent += 1
            logger.notice("feeds: sent the \(opinion.rawValue) of \(known.artist) — \(known.title) (\(FeedAlbumRef.text(known))) to Apple Music")
        }
        return sent
    }

    /// The catalog writes of an opinion, concurrently; each write's outcome on its own.
    static func writeBack(_ opinion: Opinion, albumID: String, client: any MusicCatalog) async -> [OpinionOutcome.Write] {
        typealias Job = (name: String, run: @Sendable () async throws -> Void)
        let jobs: [Job] = opinion == .favorite ? [
            ("add to library", { @Sendable in try await client.addToLibrary(albumIDs: [albumID]) }),
            ("love rating", { @Sendable in try await client.rate(albumID: albumID, .love) }),
            ("add to favorites", { @Sendable in try await client.addToFavorites(albumIDs: [albumID]) }),
        ] : [
            ("dislike rating", { @Sendable in try await client.rate(albumID: albumID, .dislike) }),
        ]
        return await inParallel(jobs.map { job in
            { @Sendable () async -> OpinionOutcome.Write in
                do {
                    try await job.run()
                    return .init(name: job.name, ok: true, message: nil)
                } catch {
                    return .init(name: job.name, ok: false, message: ErrorText.describe(error))
                }
            }
        })
    }

    /// A library album by id or name, or a catalog album by `applemusic:ID` (from a current feed, the liked
    /// and disliked catalog albums, or else asked of the catalog).
    func resolve(_ ref: String) async throws -> Album {
        let text = ref.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { throw FeedError.badAlbumReference(ref) }
        guard let id = FeedAlbumRef.catalogID(text) else { return try store.resolveAlbum(text) }
        if let album = shown("applemusic:\(id)") { return album }
        if let album = try (store.catalogAlbums(.favorite) + store.catalogAlbums(.dislike)).first(where: { $0.externalID == id }) {
            return album
        }
        let client: any MusicCatalog
        do {
            client = try catalog.client()
        } catch {
            // No catalog to ask (not set up, or not reachable by its settings): the opinion is kept by id and the
            // album's details come when it is sent.
            return Album(id: 0, identity: "\(Self.catalogScheme):\(id)", title: "Apple Music album \(id)", artist: "",
                         date: nil, year: nil, genre: nil, isCompilation: false, trackCount: 0, discCount: 0, duration: 0,
                         addedAt: Date(), source: Self.catalogScheme, externalID: id)
        }
        do {
            return try await client.album(id: id).album
        } catch {
            throw FeedError.catalogAlbumUnknown(id, reason: ErrorText.describe(error))
        }
    }

    /// The scheme of catalog album references (`applemusic:ID`), as `FeedAlbumRef` reads them.
    static let catalogScheme = "applemusic"

    private func isCatalog(_ album: Album) -> Bool { !album.isLibraryAlbum && album.externalID != nil }

    private func store(_ album: Album, _ opinion: Opinion?, unsent: Bool = false) throws {
        if isCatalog(album) {
            try store.setCatalogOpinion(album, opinion, unsent: unsent && opinion != nil)
        } else {
            try store.setOpinion(.album, id: album.id, opinion)
        }
    }

    private func currentOpinion(_ album: Album) throws -> Opinion? {
        guard isCatalog(album), let id = album.externalID else { return try store.opinion(.album, id: album.id) }
        return try store.catalogOpinion(source: album.source, externalID: id)
    }
}
