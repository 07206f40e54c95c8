/// Where a track comes from: the source's URI scheme plus the source's own id for it.
/// For local files that is `file` + the absolute path; for the catalog `applemusic` + a catalog id.
public struct TrackRef: Sendable, Hashable, Codable, CustomStringConvertible {
    public var source: String
    public var id: String

    public init(source: String, id: String) {
        self.source = source
        self.id = id
    }

    /// The scheme of files on this machine, the library's own: copies, references and imports are all files.
    public static let fileScheme = "file"

    /// A file on this machine by its absolute path.
    public static func file(_ path: String) -> TrackRef { TrackRef(source: fileScheme, id: path) }

    public var isFile: Bool { source == Self.fileScheme }

    /// `scheme:id`, e.g. `file:/music/a.flac`.
    public var description: String { "\(source):\(id)" }
}
