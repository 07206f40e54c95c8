public import CrateAPI
import CrateCore
import CrateDomain
import CrateFeeds
import Foundation
public import Hummingbird

/// The Crate Wall, genre feeds, the dial and the like/dislike loop under /api/v1 (see Docs/HTTP_API.md).
/// Feeds publish `feeds` events (dial changes, regenerated walls); opinions publish `library` events.
enum FeedRoutes {
    struct MoreBody: Decodable { var excluding: [String]? }

    static func add(to api: RouterGroup<BasicRequestContext>, feeds: FeedService) {
        api.get("wall") { request, _ in
            Encoded(await feeds.wall(artworkSize: artworkSize(request)))
        }
        api.post("wall/regenerate") { request, _ in
            Encoded(await feeds.regenerateWall(artworkSize: artworkSize(request)))
        }
        api.post("wall/more") { request, context in
            let body = try await optionalBody(request, context)
            return Encoded(try await feeds.moreWall(excluding: Set(body?.excluding ?? []), artworkSize: artworkSize(request)))
        }
        api.get("dial") { _, _ in API.DialState(await feeds.dial()) }
        api.put("dial") { request, context in
            API.DialState(try await feeds.setDial(try await request.decode(as: API.Dial.self, context: context).dial))
        }
        api.get("genres") { _, _ in Encoded(GenreTaxonomy.superGenres) }
        api.get("genres/:genre") { request, context in
            Encoded(try await feeds.genre(context.parameters.get("genre") ?? "", subcategories: subcategories(request),
                                          artworkSize: artworkSize(request)))
        }
        api.post("genres/:genre/more") { request, context in
            Encoded(try await feeds.genre(context.parameters.get("genre") ?? "", subcategories: subcategories(request), more: true,
                                          artworkSize: artworkSize(request)))
        }
        api.put("likes/:album") { _, context in Encoded(try await feeds.like(album(context))) }
        api.delete("likes/:album") { _, context in Encoded(try await feeds.clearOpinion(album(context), only: .favorite)) }
        api.put("dislikes/albums/:album") { _, context in Encoded(try await feeds.dislike(album(context))) }
        api.delete("dislikes/albums/:album") { _, context in Encoded(try await feeds.clearOpinion(album(context), only: .dislike)) }
        api.get("feeds/diagnose") { _, _ in Encoded(await feeds.diagnose()) }
    }

    /// `artwork=N` (pixels, 32–3000), default 300.
    static func artworkSize(_ request: Request) -> Int {
        min(max(FormQuery(request).get("artwork", as: Int.self) ?? 300, 32), 3000)
    }

    /// `sub=Indie Rock,Punk` or repeated `sub=` parameters.
    static func subcategories(_ request: Request) -> [String] {
        FormQuery(request).getAll("sub").flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    static func album(_ context: BasicRequestContext) throws -> String {
        guard let ref = context.parameters.get("album")?.removingPercentEncoding, !ref.isEmpty else {
            throw APIError(.badRequest, code: "bad_request", "name the album: its id, or applemusic:ID")
        }
        return ref
    }

    private static func optionalBody(_ request: Request, _ context: BasicRequestContext) async throws -> MoreBody? {
        guard request.headers[.contentLength].map({ $0 != "0" }) ?? false || request.headers[.contentType] != nil else { return nil }
        return try await request.decode(as: MoreBody.self, context: context)
    }
}

extension API.DialState: ResponseEncodable {
    init(_ dial: CrateDial) {
        self.init(dial: dial.rawValue, title: dial.title, index: dial.index, positions: CrateDial.allCases.map(\.rawValue))
    }
}
