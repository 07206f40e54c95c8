/// Where a track comes from: the source's URI scheme plus the source's own id for it.
/// For local files that is `file` + the absolute path; for the catalog `applemusic` + a catalog id.
public struct TrackRef: Sendable, Hashable, Codable, CustomStringConvertible {
    public var source: String
    public var id: String

    public init(source: String, id: String) {
        self.source = source
        self.id = id
    }

    /// `scheme:id`, e.g. `file:/music/a.flac`.
    public var description: String { "\(source):\(id)" }
}
