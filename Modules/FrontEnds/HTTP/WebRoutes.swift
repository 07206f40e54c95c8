import CrateCore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The web page: `/` is the app, `/web/…` its files. Every answer carries a strong ETag (a repeat visit is a 304
/// with no body) and `Cache-Control: no-cache` (revalidated on each load, so a new crated never serves old code);
/// text goes gzipped to browsers that accept it. `/` carries the wall's first screen (`WallFirstScreen`), so its
/// ETag is that of the page as written for this request.
enum WebRoutes {
    static func add(to router: Router<BasicRequestContext>, assets: WebAssets, feeds: FeedService, coverSize: Int) {
        router.get("/") { request, _ in try await index(request, assets, feeds, coverSize: coverSize) }
        router.get("web/**") { request, context in
            try serve(context.parameters.getCatchAll().joined(separator: "/"), request, assets)
        }
    }

    /// The page, with the wall's covers at `coverSize` pixels (`artwork.thumbnail_size`).
    static func index(_ request: Request, _ assets: WebAssets, _ feeds: FeedService, coverSize: Int) async throws -> Response {
        guard let asset = assets.files["index.html"] else { return try serve("index.html", request, assets) }
        let wall = await feeds.composedWall(first: WallFirstScreen.entries, artworkSize: coverSize)
        let html = WallFirstScreen.render(String(buffer: asset.body), entries: wall?.entries, total: wall?.total ?? 0,
                                          artworkSize: coverSize)
        let body = Data(html.utf8)
        let page = WebAssets.Asset(body: ByteBuffer(bytes: body), gzipped: nil, etag: WebAssets.etag(body), contentType: asset.contentType)
        return respond(page, request, gzip: { WebAssets.gzip(body).map { ByteBuffer(bytes: $0) } })
    }

    static func serve(_ path: String, _ request: Request, _ assets: WebAssets) throws -> Response {
        guard !path.split(separator: "/").contains(".."), let asset = assets.files[path] else {
            throw APIError(.notFound, code: "not_found", assets.problem ?? "no such file of the web page: \(path)")
        }
        return respond(asset, request, gzip: { asset.gzipped })
    }

    /// The asset, a bodiless 304 when the browser holds it already, or its gzip copy (made only when it is sent).
    private static func respond(_ asset: WebAssets.Asset, _ request: Request, gzip: () -> ByteBuffer?) -> Response {
        var headers: HTTPFields = [.eTag: asset.etag, .cacheControl: "no-cache", .vary: "Accept-Encoding",
                                   .contentType: asset.contentType]
        if request.headers[.ifNoneMatch]?.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == asset.etag }) == true {
            return Response(status: .notModified, headers: headers)
        }
        if request.headers[.acceptEncoding]?.contains("gzip") == true, let gzipped = gzip() {
            headers[.contentEncoding] = "gzip"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: gzipped))
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: asset.body))
    }
}
