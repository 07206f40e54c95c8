/// Why a local path cannot be scanned or played.
public enum LocalFilesError: Error, Sendable, CustomStringConvertible {
    case notFound(path: String)
    case invalidURI(String)

    public var description: String {
        switch self {
        case let .notFound(path): "\(path): no such file or folder"
        case let .invalidURI(uri): "'\(uri)' is not an absolute file path"
        }
    }
}
