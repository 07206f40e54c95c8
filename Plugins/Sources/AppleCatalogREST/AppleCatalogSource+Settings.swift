public import CrateDomain
import Foundation

/// The `sources.applecatalog.*` block: this plugin's settings, read and checked here. Before plugins owned their
/// blocks the keys were `catalog.*`; those still work, with a deprecation warning from the loader.
extension AppleCatalogSource {
    public static let registration = PluginRegistration.source("applecatalog", keys: settingKeys) { settings in
        switch config(from: settings) {
        case .success(let config): AppleCatalogSource(config: config)
        case .failure(let problem): AppleCatalogSource(config: AppleCatalogConfig(), settingsProblem: problem.reason)
        }
    }

    static let settingKeys: [PluginSettingKey] = [
        .init("team_id", formerly: ["catalog.team_id"], help: "the 10-character Apple developer Team ID (`iss` of the developer token)"),
        .init("key_id", formerly: ["catalog.key_id"], help: "the 10-character key id of the MusicKit key (`kid`)"),
        .init("key_path", formerly: ["catalog.key_path"], help: "path of the `.p8` private key; refused unless only its owner can read it"),
        .init("developer_token", secret: true, formerly: ["catalog.developer_token"], help: "a ready developer token (JWT), used instead of signing one"),
        .init("user_token", secret: true, formerly: ["catalog.user_token"], help: "the Music-User-Token for `/v1/me/…`"),
        .init("user_token_file", formerly: ["catalog.user_token_file"], help: "a file holding the Music-User-Token"),
        .init("storefront", formerly: ["catalog.storefront"], default: AppleCatalogConfig().storefront, help: "two-letter storefront when no user token gives one (default us)"),
        .init("base_url", formerly: ["catalog.base_url"], default: AppleCatalogConfig.defaultBaseURL.absoluteString, help: "the API root (default https://api.music.apple.com; tests point it at a loopback server)"),
        .init("requests_per_second", formerly: ["catalog.requests_per_second"],
              default: String(format: "%g", AppleCatalogConfig().requestsPerSecond), help: "the most requests in any one second, above 0 and at most 100 (default 20)"),
    ]

    struct SettingsProblem: Error { let reason: String }

    /// The block as a client configuration, or the first problem, naming the key.
    static func config(from s: PluginSettings) -> Result<AppleCatalogConfig, SettingsProblem> {
        var c = AppleCatalogConfig(teamID: s.string("team_id"), keyID: s.string("key_id"), keyPath: s.path("key_path"),
                                   developerToken: s.string("developer_token"), userToken: s.string("user_token"),
                                   userTokenFile: s.path("user_token_file"))
        if let v = s.string("storefront") {
            guard v.count == 2, v.allSatisfy({ $0.isASCII && $0.isLetter }) else {
                return .failure(.init(reason: s.problem("storefront", v, accepted: "a two-letter storefront code, e.g. us, gb, de")))
            }
            c.storefront = v.lowercased()
        }
        if let v = s.string("base_url") {
            guard let url = URL(string: v), url.scheme == "https" || url.scheme == "http", url.host != nil else {
                return .failure(.init(reason: s.problem("base_url", v, accepted: "an http(s) URL, e.g. https://api.music.apple.com")))
            }
            c.baseURL = url
        }
        if let v = s.string("requests_per_second") {
            guard let n = Double(v), n > 0, n <= 100 else {
                return .failure(.init(reason: s.problem("requests_per_second", v, accepted: "a number above 0, at most 100")))
            }
            c.requestsPerSecond = n
        }
        // The CLI and crated of one data folder share one budget (Apple counts per developer team).
        c.rateStateFile = s.dataDirectory.appendingPathComponent("applecatalog-rate").path
        return .success(c)
    }
}
