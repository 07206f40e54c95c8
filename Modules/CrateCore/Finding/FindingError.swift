/// Search, lyrics and playlist-file failures, each saying what to do.
public enum FindingError: Error, Sendable, CustomStringConvertible {
    case emptyQuery
    case noCatalog(enabled: [String])
    case catalogFailed(source: String, reason: String)
    case cannotRead(path: String, reason: String)
    case cannotWrite(path: String, reason: String)
    case playlistExists(name: String)

    public var description: String {
        switch self {
        case .emptyQuery:
            "search needs words (e.g. `crate search jud bea`, `crate search artist:beatles year:1965..1969`)"
        case .noCatalog(let enabled):
            "external search: no enabled source offers catalog search (enabled: \(enabled.joined(separator: ", "))); "
                + "configure a catalog source (sources.applecatalog.*) to search the Apple Music catalog"
        case let .catalogFailed(source, reason):
            "external search: \(source) failed: \(reason)"
        case let .cannotRead(path, reason):
            "\(path): cannot read the playlist: \(reason)"
        case let .cannotWrite(path, reason):
            "\(path): cannot write the playlist: \(reason)"
        case .playlistExists(let name):
            "a playlist named '\(name)' exists already; replace its tracks or pick another name"
        }
    }
}
