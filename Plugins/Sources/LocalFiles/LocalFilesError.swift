/// Why a local path cannot be scanned or played.
public enum LocalFilesError: Error, Sendable, CustomStringConvertible {
    case notFound(path: String)
    case invalidURI(String)
    /// The root exists (or may) but cannot be looked at: permission denied on a parent, path too long.
    case unreadable(path: String, reason: String)

    public var description: String {
        switch self {
        case let .notFound(path): "\(path): no such file or folder"
        case let .invalidURI(uri): "'\(uri)' is not an absolute file path"
        case let .unreadable(path, reason): "\(path): \(reason)"
        }
    }
}
