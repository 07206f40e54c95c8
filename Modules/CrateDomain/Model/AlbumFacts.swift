public import Foundation

/// The little a feed needs to know about every library album to pick from them: one cheap row per album,
/// so local signals choose in memory and only the chosen albums are read in full.
public struct AlbumFacts: Sendable, Hashable, Codable {
    public var id: Int64
    public var identity: String
    public var artistID: Int64
    public var artist: String
    /// The genre tag as written ("Indie Rock; Shoegaze"); see `GenreTaxonomy.classifyAll`.
    public var genre: String?
    public var year: Int?
    public var addedAt: Date
    public var playCount: Int
    public var lastPlayedAt: Date?
    public var opinion: Opinion?

    public init(id: Int64, identity: String, artistID: Int64, artist: String, genre: String?, year: Int?, addedAt: Date,
                playCount: Int, lastPlayedAt: Date?, opinion: Opinion?) {
        self.id = id
        self.identity = identity
        self.artistID = artistID
        self.artist = artist
        self.genre = genre
        self.year = year
        self.addedAt = addedAt
        self.playCount = playCount
        self.lastPlayedAt = lastPlayedAt
        self.opinion = opinion
    }
}
