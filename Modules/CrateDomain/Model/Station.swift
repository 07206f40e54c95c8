public import Foundation

/// A saved internet radio station (or any stream URL with a name). It is first-class: searchable, favorite-able,
/// queueable, in playlists, history and Home, because each station is backed by a track (`trackID`) whose ref is
/// its URL. Those tracks live in one hidden album (`Station.albumIdentity`) that album lists, feeds and counts skip.
public struct Station: Sendable, Hashable, Codable {
    public var id: Int64
    public var name: String
    public var url: String
    public var artworkURL: String?
    public var trackID: Int64
    public var addedAt: Date
    public var favorite: Bool

    public init(id: Int64, name: String, url: String, artworkURL: String?, trackID: Int64, addedAt: Date, favorite: Bool) {
        self.id = id
        self.name = name
        self.url = url
        self.artworkURL = artworkURL
        self.trackID = trackID
        self.addedAt = addedAt
        self.favorite = favorite
    }

    /// The album every stream track belongs to; never shown as an album.
    public static let albumIdentity = "radio:streams"
    public static let albumTitle = "Internet radio"

    /// Checks a stream URL a user gave: http or https with a host.
    public static func streamURL(_ text: String) throws(StationError) -> URL {
        guard let url = URL(string: text.trimmingCharacters(in: .whitespaces)), let scheme = url.scheme?.lowercased(),
              scheme == "http" || scheme == "https", url.host?.isEmpty == false else {
            throw .badURL(text)
        }
        return url
    }
}

public enum StationError: Error, Sendable, Hashable, CustomStringConvertible {
    case badURL(String)
    case exists(String)
    case notFound(String)

    public var description: String {
        switch self {
        case .badURL(let text): "'\(text)' is not a stream URL: give an http:// or https:// address"
        case .exists(let name): "a station named '\(name)' exists already"
        case .notFound(let query): "no station matches '\(query)' (see `crate stations`)"
        }
    }
}
