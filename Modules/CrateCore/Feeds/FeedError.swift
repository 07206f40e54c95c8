import CrateFeeds
import Foundation

/// Why a feed request cannot be served, in words a user can act on.
public enum FeedError: Error, Sendable, CustomStringConvertible {
    case unknownDial(String)
    case noWallYet
    case noGenreFeed
    case catalogAlbumUnknown(String, reason: String)
    case badAlbumReference(String)

    public var description: String {
        switch self {
        case .unknownDial(let text):
            "no dial position '\(text)'; positions: \(CrateDialNames.all)"
        case .noWallYet:
            "there is no wall to continue yet: ask for the wall first"
        case .noGenreFeed:
            "there is no genre feed to continue: ask for a genre first"
        case let .catalogAlbumUnknown(id, reason):
            "cannot find catalog album \(id): \(reason)"
        case .badAlbumReference(let text):
            "'\(text)' names no album: use a library album's id or name, or applemusic:ID for a catalog album"
        }
    }
}

/// The dial's positions for error messages.
enum CrateDialNames {
    static var all: String {
        CrateDial.allCases.map { "\($0.rawValue) (\($0.index), \($0.title))" }.joined(separator: ", ")
    }
}
