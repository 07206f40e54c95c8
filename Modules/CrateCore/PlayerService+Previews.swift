public import CrateDomain
import CrateStorage
import Foundation
import Logging

/// Catalog previews in the player (see `CatalogPreview`): a catalog album plays as its songs' 30-second previews, in
/// album order, through the URLStream source like any stream; status and `player` events say `preview: true`.
extension PlayerService {
    /// Replaces the queue with the previews of catalog album `reference` (`applemusic:ID`, or the bare ID) from its
    /// `from`-th song (1-based, in the catalog's album order) and plays them with the album lock (shuffle goes off, as
    /// for any album). Songs without a preview are left out and listed in the answer (and as `player` events).
    public func playCatalogAlbum(_ reference: String, from: Int = 1) async throws -> PreviewPlay {
        let text = reference.trimmingCharacters(in: .whitespaces)
        let id = FeedAlbumRef.catalogID(text) ?? text
        guard !id.isEmpty, !id.contains(":"), !id.contains("/") else {
            throw PlayerError.invalidValue("'\(reference)' names no catalog album: give applemusic:ID")
        }
        // The catalog is asked before anything changes here: the queue and the player are as they were until it answers.
        let found = try await runtime.catalog.client().album(id: id)
        let songs = found.tracks
        guard !songs.isEmpty else { throw PlayerError.invalidValue("\(found.album.title) has no songs in the catalog") }
        guard (1...songs.count).contains(from) else {
            throw PlayerError.invalidValue("the album has \(songs.count) songs; from must be 1–\(songs.count)")
        }
        let wanted = Array(songs[(from - 1)...])
        let playable = wanted.filter { CatalogPreview.previewURL($0) != nil }
        let skipped = wanted.filter { CatalogPreview.previewURL($0) == nil }.map {
            PreviewSkip(title: $0.title, discNumber: $0.discNumber, trackNumber: $0.trackNumber, reason: CatalogPreview.noPreviewReason)
        }
        let catalogAlbum = CatalogPreview.reference(found.album)
        guard !playable.isEmpty else {
            throw PlayerError.invalidValue("\(found.album.title) (\(catalogAlbum)) has no song with a preview to play")
        }
        let ids = try store.storePreviews(of: found.album, tracks: playable)
        if modes.shuffle {
            modes.shuffle = false
            publish(.options(.shuffleOffForAlbum))
        }
        try playList(ids, albumLock: true)
        for skip in skipped { publish(.player(.skipped(title: skip.title, reason: skip.reason, preview: true))) }
        logger.info("previews of \(catalogAlbum) (\(found.album.title)): \(ids.count) queued, \(skipped.count) without a preview")
        return PreviewPlay(album: catalogAlbum, title: found.album.title, artist: found.album.artist, queued: ids.count,
                           skipped: skipped, status: try status())
    }

    /// The catalog album (`applemusic:ID`) when `track` is one of its previews; nil for any other track.
    func previewAlbum(of track: Track) throws -> String? {
        try store.previewCatalogAlbum(albumID: track.albumID)
    }

    /// Marks a status whose entry is a preview: `preview`, the catalog album, and the preview's own length once the
    /// decoder knows it (the track keeps the song's full length, as the catalog gives it).
    /// `album` is the entry's catalog album, read with it (`LibraryStore.playerView`).
    func markPreview(_ status: inout PlayerStatus, album: String?) {
        guard let album, status.entry != nil else { return }
        status.preview = true
        status.catalogAlbumID = album
        if let format = status.format, let frames = format.frames, format.sampleRate > 0 {
            status.duration = Double(frames) / Double(format.sampleRate)
        }
    }

    /// A `player` event about `track` ("playing Part 1", "finished Part 1"); a preview's says so and carries `preview`.
    func publishTrack(_ moment: PlayerChange.TrackMoment, _ track: Track) throws {
        publish(.player(.track(moment, title: track.title, preview: try previewAlbum(of: track) != nil)))
    }
}
