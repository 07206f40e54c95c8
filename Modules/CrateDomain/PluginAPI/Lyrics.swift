/// Unsynchronised lyrics of a track, and where they came from.
public struct Lyrics: Sendable, Hashable, Codable {
    public var trackID: Int64
    public var text: String
    /// The provider's name (`embedded` for tags read at import).
    public var provider: String

    public init(trackID: Int64, text: String, provider: String) {
        self.trackID = trackID
        self.text = text
        self.provider = provider
    }
}

/// Finds lyrics for a track. Providers are asked in order; the embedded one comes first (preferred).
public protocol LyricsProvider: Sendable {
    var name: String { get }
    func lyrics(for track: Track) async throws -> Lyrics?
}
