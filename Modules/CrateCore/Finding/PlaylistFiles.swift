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
    public var skipped: [Skipped]
}

/// Playlist import and export in the M3U format. Entries are matched to library tracks by path (the
/// file's, or the one a copy was imported from); what is not in the library is reported, not dropped silently.
public struct PlaylistFiles: Sendable {
    let store: LibraryStore

    public init(store: LibraryStore) { self.store = store }

    public func importM3U(_ file: URL, name: String? = nil, replace: Bool = false, now: Date = Date()) throws -> PlaylistImportReport {
        let data: Data
        do { data = try Data(contentsOf: file) } catch {
            throw FindingError.cannotRead(path: file.path, reason: ErrorText.describe(error))
        }
        let items = M3U.decode(data)
        let folder = file.deletingLastPathComponent()
        let paths = items.map { M3U.path(of: $0, relativeTo: folder) }
        let found = try store.trackIDs(forPaths: paths.compactMap { $0 })
        var ids: [Int64] = []
        var skipped: [PlaylistImportReport.Skipped] = []
        for (item, path) in zip(items, paths) {
            if let path, let id = found[path] { ids.append(id) } else {
                skipped.append(.init(location: item.location, reason: path == nil ? "not a local file" : "not in the library"))
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
        return PlaylistImportReport(playlist: try store.playlist(id: playlist.id) ?? playlist, added: ids.count, skipped: skipped)
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
