public import CrateDomain

/// Playlists, stations and favorites under /api/v1 (Docs/HTTP_API.md): one declaration for the HTTP front end and its
/// clients.
extension API {
    /// `POST playlists` (create), `PATCH playlists/{id}` (rename).
    public struct PlaylistName: Codable, Sendable, Hashable {
        public var name: String

        public init(name: String) {
            self.name = name
        }
    }

    /// `POST playlists/{id}/tracks`: tracks or an album's, at a 1-based index or the end.
    public struct PlaylistAdd: Codable, Sendable, Hashable {
        public var trackIDs: [Int64]?
        public var albumID: Int64?
        public var index: Int?

        public init(trackIDs: [Int64]? = nil, albumID: Int64? = nil, index: Int? = nil) {
            self.trackIDs = trackIDs
            self.albumID = albumID
            self.index = index
        }
    }

    /// `POST playlists/{id}/remove`: 1-based positions.
    public struct PlaylistRemove: Codable, Sendable, Hashable {
        public var positions: [Int]

        public init(positions: [Int]) {
            self.positions = positions
        }
    }

    /// `POST playlists/import`: an .m3u/.m3u8 file on the daemon's machine.
    public struct PlaylistImport: Codable, Sendable, Hashable {
        public var path: String
        public var name: String?
        public var replace: Bool?

        public init(path: String, name: String? = nil, replace: Bool? = nil) {
            self.path = path
            self.name = name
            self.replace = replace
        }
    }

    /// A playlist (nil for Favorites) with its entries: the answer of every playlist edit.
    public struct PlaylistDetail: Codable, Sendable, Hashable {
        public var playlist: Playlist?
        public var name: String
        public var entries: [PlaylistEntry]

        public init(playlist: Playlist? = nil, name: String, entries: [PlaylistEntry]) {
            self.playlist = playlist
            self.name = name
            self.entries = entries
        }
    }

    /// `POST stations`.
    public struct StationAdd: Codable, Sendable, Hashable {
        public var name: String
        public var url: String
        public var artworkURL: String?

        public init(name: String, url: String, artworkURL: String? = nil) {
            self.name = name
            self.url = url
            self.artworkURL = artworkURL
        }
    }

    /// `PUT`/`DELETE favorites/{kind}/{id}`: the opinion now held.
    public struct OpinionState: Codable, Sendable, Hashable {
        public var kind: FavoriteKind
        public var id: Int64
        public var opinion: Opinion?

        public init(kind: FavoriteKind, id: Int64, opinion: Opinion? = nil) {
            self.kind = kind
            self.id = id
            self.opinion = opinion
        }
    }
}
