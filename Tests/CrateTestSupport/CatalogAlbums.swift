public import CrateDomain
import Foundation

/// A catalog album as the catalog source makes them (identity `applemusic:<id>`, `externalID` set).
public func catalogAlbum(_ id: String) -> Album {
    Album(id: 0, identity: "applemusic:\(id)", title: "Album \(id)", artist: "Artist", date: nil, year: nil, genre: nil,
          isCompilation: false, trackCount: 10, discCount: 1, duration: 2400, addedAt: Date(timeIntervalSince1970: 0),
          source: "applemusic", externalID: id)
}

/// `count` catalog albums with ids `<prefix>0`, `<prefix>1`, …
public func catalogAlbums(_ prefix: String, _ count: Int) -> [Album] {
    (0..<count).map { catalogAlbum("\(prefix)\($0)") }
}

/// The keys genre merging deduplicates by.
public func mergeKeys(_ albums: [Album]) -> [String] {
    albums.map(GenreMerge.key)
}
