import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The web page: `/` is the app, `/web/…` its files. Every answer carries a strong ETag (a repeat visit is a 304
/// with no body) and `Cache-Control: no-cache` (revalidated on each load, so a new crated never serves old code);
/// text goes gzipped to browsers that accept it.
enum WebRoutes {
    static func add(to router: Router<BasicRequestContext>, assets: WebAssets) {
        router.get("/") { request, _ in try serve("index.html", request, assets) }
        router.get("web/**") { request, context in
            try serve(context.parameters.getCatchAll().joined(separator: "/"), request, assets)
        }
    }

    static func serve(_ path: String, _ request: Request, _ assets: WebAssets) throws -> Response {
        guard !path.split(separator: "/").contains(".."), let asset = assets.files[path] else {
            throw APIError(.notFound, code: "not_found", assets.problem ?? "no such file of the web page: \(path)")
        }
        var headers: HTTPFields = [.eTag: asset.etag, .cacheControl: "no-cache", .vary: "Accept-Encoding",
                                   .contentType: asset.contentType]
        if request.headers[.ifNoneMatch]?.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == asset.etag }) == true {
            return Response(status: .notModified, headers: headers)
        }
        if let gzipped = asset.gzipped, request.headers[.acceptEncoding]?.contains("gzip") == true {
            headers[.contentEncoding] = "gzip"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: gzipped))
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: asset.body))
    }
}
