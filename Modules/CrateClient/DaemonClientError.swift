/// Why a call to crated failed, as one line a user can act on.
public enum DaemonClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Nothing answers at the address (or the connection broke).
    case notRunning(address: String, reason: String?)
    /// crated answered with an error (`{"error": {"code", "message"}}`).
    case refused(status: Int, code: String, message: String)
    case unexpectedAnswer(path: String, reason: String)
    case badPath(String)

    public var description: String {
        switch self {
        case let .notRunning(address, reason):
            "crated is not running at \(address); start it with `crated`" + (reason.map { " (\($0))" } ?? "")
        case let .refused(_, _, message): message
        case let .unexpectedAnswer(path, reason): "unexpected answer from crated (\(path)): \(reason)"
        case let .badPath(path): "bad request path \(path)"
        }
    }
}
