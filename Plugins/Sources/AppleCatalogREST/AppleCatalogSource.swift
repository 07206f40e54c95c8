public import CrateDomain
import Foundation

/// The Apple Music catalog as a source under the `applemusic:` scheme: its albums and songs map into
/// the library's `Album` and `Track`, and it answers external searches. Its tracks cannot be played in
/// full here (Apple's DRM); each keeps its 30-second preview URL.
public struct AppleCatalogSource: CatalogSource {
    public static let scheme = CatalogMapping.source

    public let name = "applecatalog"
    public let schemes = [AppleCatalogSource.scheme]
    public let status: PluginStatus
    /// The client, when the source is available.
    public let client: AppleCatalogClient?
    let config: AppleCatalogConfig
    private let settingsProblem: String?

    /// Unavailable, with the reason, without credentials, with a key that cannot be used, or with a
    /// ready developer token that has expired.
    public init(config: AppleCatalogConfig) {
        self.config = config
        settingsProblem = nil
        guard config.hasDeveloperCredentials else {
            status = .unavailable(reason: AppleCatalogError.notConfigured(missing: config.missingCredentials).description)
            client = nil
            return
        }
        do {
            let client = try AppleCatalogClient(config: config)
            if client.readyTokenExpired() {
                status = .unavailable(reason: AppleCatalogError.developerTokenExpired.description)
                self.client = nil
                return
            }
            self.client = client
            status = .available
        } catch {
            status = .unavailable(reason: error.description)
            client = nil
        }
    }

    /// Unavailable because a setting of the block is wrong (the reason names the key).
    init(config: AppleCatalogConfig, settingsProblem: String) {
        self.config = config
        self.settingsProblem = settingsProblem
        status = .unavailable(reason: settingsProblem)
        client = nil
    }

    public var catalog: (any MusicCatalog)? { client }

    public var isConfigured: Bool {
        settingsProblem != nil || [config.teamID, config.keyID, config.keyPath, config.developerToken, config.userToken,
                                   config.userTokenFile].contains { $0 != nil }
    }

    public func authCheck() async -> CatalogAuthReport {
        if let client { return await client.authCheck() }
        return await AppleCatalogClient.authCheck(config: config)
    }

    public static func ref(songID: String) -> TrackRef { TrackRef(source: scheme, id: songID) }

    /// Always refuses: full catalog tracks play only in Apple's own players.
    public func locate(_ ref: TrackRef) throws -> PlayableLocation {
        throw AppleCatalogError.previewOnly(ref: ref.description)
    }

    public func searchCatalog(_ term: String, limit: Int) async throws -> [SearchGroupResult] {
        guard let client else { throw AppleCatalogError.invalidRequest(status.reason ?? "the Apple Music catalog is unavailable") }
        return try await client.search(term: term, limit: limit)
    }
}
