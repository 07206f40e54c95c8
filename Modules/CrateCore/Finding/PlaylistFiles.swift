public import CrateDomain
public import CrateStorage
public import Foundation

/// What an `.m3u`/`.m3u8` import did: the playlist, how many entries became tracks, and why the others did not.
public struct PlaylistImportReport: Sendable, Codable {
    public struct Skipped: Sendable, Codable, Hashable {
        public var location: String
        public var reason: String
    }

    public var playlist: Playlist
    public var added: Int
    /// Of `added`, the entries found by artist, title and length, or by the end of a Windows path, because their
    /// path names no library file here (a playlist from another library or machine).
    public var matchedByTags: Int
    public var skipped: [Skipped]
}

/// Playlist import and export in the M3U format. Entries are matched to library tracks by path (the file's, or the
/// one a copy was imported from), then, for paths that name no library file, by the `#EXTINF` artist, title and
/// length (what an export writes) or the end of a Windows path; what still matches nothing is reported with its
/// own reason, not dropped silently.
public struct PlaylistFiles: Sendable {
    let store: LibraryStore
    let events: EventBus?

    public init(store: LibraryStore, events: EventBus? = nil) {
        self.store = store
        self.events = events
    }

    public func importM3U(_ file: URL, name: String? = nil, replace: Bool = false, now: Date = Date()) throws -> PlaylistImportReport {
        let data: Data
        do { data = try Data(contentsOf: file) } catch {
            throw FindingError.cannotRead(path: file.path, reason: ErrorText.describe(error))
        }
        let items = M3U.decode(data)
        let folder = file.deletingLastPathComponent()
        let locations = items.map { M3U.locate($0, relativeTo: folder) }
        let found = try store.trackIDs(forPaths: locations.compactMap { if case .file(let path) = $0 { path } else { nil } })
        var ids: [Int64] = []
        var byTags = 0
        var skipped: [PlaylistImportReport.Skipped] = []
        for (item, location) in zip(items, locations) {
            if case .file(let path) = location, let id = found[path] {
                ids.append(id)
            } else if let id = try matchByTags(item, location) {
                ids.append(id)
                byTags += 1
            } else {
                skipped.append(.init(location: item.location, reason: Self.reason(item, location)))
            }
        }
        let title = name ?? file.deletingPathExtension().lastPathComponent
        let playlist: Playlist
        if let existing = try? store.resolvePlaylist(title), existing.name.caseInsensitiveCompare(title) == .orderedSame {
            guard replace else { throw FindingError.playlistExists(name: existing.name) }
            try store.setPlaylistTracks(id: existing.id, trackIDs: ids, now: now)
            playlist = existing
        } else {
            playlist = try store.createPlaylist(name: title, at: now)
            try store.addToPlaylist(id: playlist.id, trackIDs: ids, now: now)
        }
        events?.publish(.library(.playlist(id: playlist.id, .imported)))
        return PlaylistImportReport(playlist: try store.playlist(id: playlist.id) ?? playlist, added: ids.count,
                                    matchedByTags: byTags, skipped: skipped)
    }

    /// A local entry whose path names no library file: its `#EXTINF` artist, title and length, else the end of a
    /// Windows path. Streams are never matched this way.
    private func matchByTags(_ item: M3U.Item, _ location: M3U.Location) throws -> Int64? {
        if case .url = location { return nil }
        for reading in item.title.map(M3U.artistAndTitle) ?? [] {
            if let id = try store.trackID(artist: reading.artist, title: reading.title, seconds: item.seconds) { return id }
        }
        if case .windows(let tail) = location { return try store.trackID(pathEndingWith: tail) }
        return nil
    }

    /// Why an entry matched nothing, one reason per cause.
    static func reason(_ item: M3U.Item, _ location: M3U.Location) -> String {
        let byTags = item.title.map { M3U.artistAndTitle($0).isEmpty } == false
            ? "no library track has its #EXTINF artist, title and length"
            : "it has no #EXTINF \"Artist - Title\" to match by"
        switch location {
        case .url(let scheme) where scheme == "http" || scheme == "https":
            return "a stream URL, not a library track (save it as a station)"
        case .url(let scheme):
            return "a \(scheme): URL, which Crate cannot play"
        case .windows:
            return "a Windows path, no library file ends with it, and \(byTags)"
        case .file(let path):
            if FileManager.default.fileExists(atPath: path) {
                return "the file exists but is not in the library (import it first)"
            }
            return "no such file, and \(byTags)"
        }
    }

    /// The playlist as M3U text (the Favorites pseudo-playlist when `playlistID` is nil).
    public func m3u(_ playlistID: Int64?) throws -> String {
        let tracks = try playlistID.map { try store.playlistEntries(id: $0).map(\.track) } ?? store.favoriteTracks()
        return M3U.write(tracks.map { t in
            M3U.Item(location: t.path ?? t.ref.description, seconds: Int(t.duration.rounded()), title: "\(t.artist) - \(t.title)")
        })
    }

    /// Writes the playlist to `file`; returns how many tracks it holds.
    @discardableResult
    public func exportM3U(_ playlistID: Int64?, to file: URL) throws -> Int {
        let text = try m3u(playlistID)
        do { try Data(text.utf8).write(to: file, options: .atomic) } catch {
            throw FindingError.cannotWrite(path: file.path, reason: ErrorText.describe(error))
        }
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.count
    }
}
