/// Storage failures, with the database path so the user knows which file is at fault.
public enum StoreError: Error, Sendable, CustomStringConvertible {
    case cannotOpen(path: String, reason: String)
    case migrationFailed(path: String, reason: String)
    /// A read-only command met a database an older Crate wrote; upgrading it is a write.
    case needsUpgrade(path: String)
    /// Another process (the daemon) is the library's writer.
    case heldByDaemon(path: String, pid: Int32?)
    case query(String)
    case albumNotFound(String)
    case ambiguousAlbum(query: String, candidates: [String])
    case trackNotFound(Int64)
    case unknownField(String, known: [String])
    case notFound(kind: String, query: String)
    case ambiguous(kind: String, query: String, candidates: [String])
    case invalid(String)

    public var description: String {
        switch self {
        case let .cannotOpen(path, reason):
            "cannot open the library database at \(path): \(reason)"
        case let .migrationFailed(path, reason):
            "cannot upgrade the library database at \(path): \(reason)"
        case let .needsUpgrade(path):
            "the library database at \(path) comes from an older Crate and needs an upgrade: start crated (or run a library command such as `crate rescan`) once"
        case let .heldByDaemon(path, pid):
            "another Crate process\(pid.map { " (pid \($0))" } ?? "") is the library's writer now (\(path)): crated, or a "
                + "`crate` command such as an import"
        case let .query(reason):
            "library database error: \(reason)"
        case let .albumNotFound(query):
            "no album matches '\(query)' (try `crate albums`)"
        case let .trackNotFound(id):
            "no track has id \(id) (see `crate tracks ALBUM`)"
        case let .unknownField(field, known):
            "unknown field '\(field)'; fields: \(known.joined(separator: ", "))"
        case let .notFound(kind, query):
            "no \(kind) matches '\(query)'"
        case let .ambiguous(kind, query, candidates):
            "'\(query)' matches \(candidates.count) \(kind)s; be more specific or use the id:\n  "
                + candidates.prefix(10).joined(separator: "\n  ")
        case let .invalid(message):
            message
        case let .ambiguousAlbum(query, candidates):
            "'\(query)' matches \(candidates.count) albums; be more specific or use the id:\n  "
                + candidates.prefix(10).joined(separator: "\n  ")
        }
    }
}
