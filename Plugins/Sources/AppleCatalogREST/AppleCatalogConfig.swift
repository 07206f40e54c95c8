public import Foundation

/// What the Apple Music catalog source needs, from `catalog.*` settings. Either a ready developer token, or
/// the team id, key id and `.p8` key to sign one. The Music-User-Token (for `/v1/me/...`) comes from a
/// file or the environment and is never logged.
public struct AppleCatalogConfig: Sendable, Hashable {
    public static let defaultBaseURL = URL(string: "https://api.music.apple.com") ?? URL(fileURLWithPath: "/")

    public var teamID: String?
    public var keyID: String?
    /// Path of the `.p8` private key (PKCS#8 PEM). Refused when others can read it.
    public var keyPath: String?
    /// A developer token made elsewhere; used as is instead of signing one.
    public var developerToken: String?
    public var userToken: String?
    /// A file holding the Music-User-Token (read at start).
    public var userTokenFile: String?
    /// The storefront for catalog calls when no user token says otherwise (`/v1/me/storefront`).
    public var storefront: String
    /// The API's root; tests point it at a loopback server.
    public var baseURL: URL
    public var requestsPerSecond: Double
    /// The file that holds the rate window every Crate process of one data folder shares (nil: this process only).
    public var rateStateFile: String?
    public var timeoutSeconds: Double
    public var maxRetries: Int
    /// First backoff delay after a 429 or 5xx, doubled per retry (Apple's throttle clears in 0.5–3.5 s).
    public var retryBaseDelay: Double
    /// How long cached catalog answers (charts, search, genres, albums) stay fresh; 0 turns the cache off.
    /// Charts change daily, so a daemon that runs for weeks should not show the first day's forever.
    public var cacheLifetime: Double

    public init(teamID: String? = nil, keyID: String? = nil, keyPath: String? = nil, developerToken: String? = nil,
                userToken: String? = nil, userTokenFile: String? = nil, storefront: String = "us",
                baseURL: URL = defaultBaseURL, requestsPerSecond: Double = 20, timeoutSeconds: Double = 15, maxRetries: Int = 3,
                retryBaseDelay: Double = 0.5, cacheLifetime: Double = 12 * 3600) {
        self.teamID = teamID
        self.keyID = keyID
        self.keyPath = keyPath
        self.developerToken = developerToken
        self.userToken = userToken
        self.userTokenFile = userTokenFile
        self.storefront = storefront
        self.baseURL = baseURL
        self.requestsPerSecond = requestsPerSecond
        self.timeoutSeconds = timeoutSeconds
        self.maxRetries = maxRetries
        self.retryBaseDelay = retryBaseDelay
        self.cacheLifetime = cacheLifetime
    }

    /// Whether there is enough to make a developer token.
    public var hasDeveloperCredentials: Bool {
        developerToken != nil || (teamID != nil && keyID != nil && keyPath != nil)
    }

    /// Which settings are missing, for the "unavailable" reason.
    public var missingCredentials: [String] {
        if developerToken != nil { return [] }
        return [("sources.applecatalog.team_id", teamID), ("sources.applecatalog.key_id", keyID), ("sources.applecatalog.key_path", keyPath)]
            .filter { $0.1 == nil }.map(\.0)
    }
}

/// Tokens are secrets: printing or dumping a config (logs, error reports) shows whether they are set, never them.
extension AppleCatalogConfig: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        func set(_ value: String?) -> String { value == nil ? "unset" : "set" }
        return "AppleCatalogConfig(teamID: \(teamID ?? "unset"), keyID: \(keyID ?? "unset"), keyPath: \(keyPath ?? "unset"), "
            + "developerToken: \(set(developerToken)), userToken: \(set(userToken)), userTokenFile: \(userTokenFile ?? "unset"), "
            + "storefront: \(storefront), baseURL: \(baseURL.absoluteString))"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(self, children: ["description": description], displayStyle: .struct)
    }
}
