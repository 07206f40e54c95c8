public import CrateDomain
import Foundation

/// Why a catalog call failed, as one short line a user can act on. Apple's bodies are never shown
/// raw: at most the `detail` of its error envelope, shortened.
public enum AppleCatalogError: Error, Sendable, Hashable, CustomStringConvertible {
    case notConfigured(missing: [String])
    case keyFileUnreadable(path: String, reason: String)
    case keyFileTooOpen(path: String, mode: Int)
    case badKey(path: String, reason: String)
    case developerTokenExpired
    case developerTokenRejected
    case userTokenMissing
    case userTokenRejected
    case subscriptionRequired
    case notFound(String)
    case rateLimited(retries: Int)
    case server(status: Int)
    case badResponse(endpoint: String, reason: String)
    case transport(String)
    case cancelled
    case invalidRequest(String)
    /// A catalog track asked to be played in full: only Apple's own players may (DRM).
    case previewOnly(ref: String)

    /// The `unavailable` reason of an unconfigured source.
    public static let notConfiguredText =
        "not configured: set sources.applecatalog.team_id, sources.applecatalog.key_id and sources.applecatalog.key_path (or sources.applecatalog.developer_token)"

    public var description: String {
        switch self {
        case .notConfigured(let missing):
            // Everything missing is the common case: the plain sentence says it all.
            missing.isEmpty || missing.count == 3
                ? Self.notConfiguredText
                : "\(Self.notConfiguredText); missing \(missing.joined(separator: ", "))"
        case let .keyFileUnreadable(path, reason):
            "cannot read the Apple Music key \(path): \(reason)"
        case let .keyFileTooOpen(path, mode):
            "the Apple Music key \(path) can be read by other users (mode \(String(mode & 0o777, radix: 8))); "
                + "run: chmod 600 \(path)"
        case let .badKey(path, reason):
            "\(path) is not a usable Apple Music key (a .p8 file holding a P-256 private key): \(reason)"
        case .developerTokenExpired:
            "the Apple Music developer token has expired; make a new one, or set sources.applecatalog.team_id, sources.applecatalog.key_id "
                + "and sources.applecatalog.key_path so Crate signs and renews it"
        case .developerTokenRejected:
            "Apple Music refused the developer token (401): check sources.applecatalog.team_id and sources.applecatalog.key_id, and that the key "
                + "has the MusicKit service"
        case .userTokenMissing:
            "no Music-User-Token: set sources.applecatalog.user_token_file (or sources.applecatalog.user_token, or the environment "
                + "variable CRATE_SOURCES_APPLECATALOG_USER_TOKEN) to use your library and history"
        case .userTokenRejected:
            "Apple Music refused the Music-User-Token (403): it is invalid or expired; sign in again to get a new one"
        case .subscriptionRequired:
            "this Apple Music account has no active subscription (or has not allowed access), so personal features are off"
        case .notFound(let what):
            "not found on Apple Music: \(what)"
        case .rateLimited(let retries):
            "Apple Music is limiting requests (HTTP 429, still after \(retries) \(retries == 1 ? "retry" : "retries")); "
                + "try again in a moment"
        case .server(let status):
            "Apple Music answered with a server error (HTTP \(status)); try again later"
        case let .badResponse(endpoint, reason):
            "unexpected answer from Apple Music (\(endpoint)): \(reason)"
        case .transport(let reason):
            "cannot reach Apple Music: \(reason)"
        case .cancelled:
            "the Apple Music request was cancelled"
        case .invalidRequest(let reason):
            "Apple Music refused the request: \(reason)"
        case .previewOnly(let ref):
            "\(ref) cannot be played in full outside Apple's own players (DRM); only its 30-second preview can be played"
        }
    }
}

extension AppleCatalogError: CatalogClassifiedError {
    public var catalogErrorKind: CatalogErrorKind {
        switch self {
        case .notFound: .notFound
        case .invalidRequest: .invalidRequest
        case .rateLimited: .rateLimited
        case .cancelled: .cancelled
        case .userTokenMissing, .userTokenRejected, .subscriptionRequired: .user
        case .notConfigured, .keyFileUnreadable, .keyFileTooOpen, .badKey, .developerTokenExpired, .developerTokenRejected: .auth
        case .previewOnly: .previewOnly
        case .server, .badResponse, .transport: .failed
        }
    }
}
