import CrateCore
import CrateClient
import CrateDomain
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How a feed command reaches the feeds: through `crated` when it runs (its wall lives as long as the
/// daemon and `--more` continues it), else directly on the library and catalog (one page, then exit).
enum FeedAccess {
    case daemon(DaemonClient)
    case direct(FeedService)

    static func open(_ options: GlobalOptions) async throws -> FeedAccess {
        if let daemon = try await options.daemon() { return .daemon(daemon) }
        // Composing directly stores the dial and opinions: a writer.
        return .direct(try await options.runtime(.write).feeds())
    }

    /// The path segment for an album reference (`applemusic:123` stays readable; spaces are escaped).
    static func segment(_ ref: String) -> String {
        ref.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? ref
    }

    static func query(_ items: [(String, String)]) -> String {
        var components = URLComponents()
        components.queryItems = items.map { URLQueryItem(name: $0.0, value: $0.1) }
        return components.percentEncodedQuery.map { "?\($0)" } ?? ""
    }
}
