import CrateCore
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
        let runtime = try await options.runtime()
        let client = DaemonClient(settings: runtime.settings)
        if await client.isRunning() { return .daemon(client) }
        return .direct(runtime.feeds())
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

extension DaemonClient {
    /// Whether crated answers on its address (a refused connection answers at once).
    func isRunning() async -> Bool {
        guard let url = URL(string: "health", relativeTo: base) else { return false }
        var request = URLRequest(url: url)
        request.timeoutInterval = 2
        authorize(&request)
        do {
            let (_, response) = try await URLSession.shared.data(for: request)
            return (response as? HTTPURLResponse)?.statusCode == 200
        } catch {
            return false
        }
    }
}
