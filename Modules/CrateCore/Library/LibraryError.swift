import CrateDomain
import Foundation

/// Library operations that failed, with the file and what to do.
public enum LibraryError: Error, Sendable, CustomStringConvertible {
    case io(path: String, action: String, reason: String)
    case copyMismatch(original: String, copy: String)
    case notEditable(trackID: Int64, path: String?)
    case noFile(trackID: Int64)
    case notFound(path: String)
    /// The path exists but the library holds no file there (or under it).
    case notInLibrary(path: String)
    case busy(String)

    public var description: String {
        switch self {
        case let .io(path, action, reason):
            "\(path): cannot \(action): \(reason)"
        case let .copyMismatch(original, copy):
            "the copy \(copy) does not match \(original) (hash differs); the original was kept and the copy removed"
        case let .notEditable(id, path):
            "track \(id) is a reference import (\(path ?? "no file")): Crate edits only files it copied into its library; "
                + "import it with --mode copy to edit it"
        case let .noFile(id):
            "track \(id) has no library file"
        case let .notFound(path):
            "\(path): no such file or folder"
        case let .notInLibrary(path):
            "\(path): the library has no files there (crate import adds them)"
        case let .busy(what):
            "\(what) is already running; try again when it is done"
        }
    }
}
