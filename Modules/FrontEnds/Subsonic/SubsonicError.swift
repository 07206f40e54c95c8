/// A failed request as Subsonic reports it: a code from the spec's list and a message a person can act on, inside
/// the envelope (HTTP 200), which is where every Subsonic app looks for it.
struct SubsonicError: Error, Sendable, Equatable, CustomStringConvertible {
    enum Code: Int, Sendable {
        case generic = 0
        case missingParameter = 10
        case clientTooOld = 20
        case serverTooOld = 30
        case wrongCredentials = 40
        case mechanismNotSupported = 42
        case conflictingMechanisms = 43
        case invalidAPIKey = 44
        case notAuthorized = 50
        case notFound = 70
    }

    var code: Code
    var message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    var description: String { "error \(code.rawValue): \(message)" }

    static func missing(_ parameter: String) -> SubsonicError {
        SubsonicError(.missingParameter, "required parameter '\(parameter)' is missing")
    }

    static func invalid(_ parameter: String, _ value: String, expected: String) -> SubsonicError {
        SubsonicError(.generic, "parameter '\(parameter)' has the invalid value '\(value)': \(expected)")
    }

    static func notFound(_ what: String) -> SubsonicError { SubsonicError(.notFound, "\(what) not found") }

    static func adminOnly(_ endpoint: String) -> SubsonicError {
        SubsonicError(.notAuthorized, "\(endpoint) needs an admin account (crate users add NAME --admin)")
    }
}
