/// One genre value of the library and how much music carries it (a multi-valued genre counts for each value).
public struct GenreCount: Sendable, Hashable, Codable {
    /// The value as first seen in the library ("Shoegaze").
    public var name: String
    public var trackCount: Int
    public var albumCount: Int

    public init(name: String, trackCount: Int = 0, albumCount: Int = 0) {
        self.name = name
        self.trackCount = trackCount
        self.albumCount = albumCount
    }
}
