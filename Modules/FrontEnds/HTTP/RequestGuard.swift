import CrateCore
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// The daemon's door, in front of every route: Host, token, origin, body type and size; then the security headers
/// on every answer. Rules and reasons: Docs/HTTP_API.md, "Security".
struct RequestGuard<Context: RequestContext>: RouterMiddleware {
    let policy: AccessPolicy
    let logger: Logger

    static var sessionCookie: String { "crate_session" }
    /// Reachable without the token: the sign-in page and the call it makes, and the web app manifest with its
    /// icons, which browsers fetch without cookies when the page is added to a home screen (they hold nothing of the
    /// library).
    static var openPaths: Set<String> {
        ["/login", "/login.js", "/api/v1/session", "/web/manifest.webmanifest", "/web/icons/crate.svg",
         "/web/icons/crate-180.png", "/web/icons/crate-192.png", "/web/icons/crate-512.png", "/web/icons/crate-maskable-512.png"]
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await screen(request, context: context, next: next)
        } catch let refusal as Refusal {
            response = try refusal.error.response(from: request, context: context)
            for field in refusal.headers { response.headers.append(field) }
            if Self.hasBody(request) {
                // Refused before its body was read: read and drop it first (see `collect`), then close.
                _ = try? await Self.within(seconds: policy.http.idleTimeoutSeconds) { [request] in
                    try await Self.collect(request.body, limit: 0)
                }
                response.headers[.connection] = "close"
            }
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        decorate(&response, request)
        return response
    }

    /// A refusal made before the request's body was read (Host, token, origin, body type).
    private struct Refusal: Error {
        var error: APIError
        var headers: HTTPFields = [:]
    }

    static func hasBody(_ request: Request) -> Bool {
        if let length = request.headers[.contentLength].flatMap(Int.init) { return length > 0 }
        return request.headers[.transferEncoding] != nil
    }

    private func screen(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let authority = request.head.authority
        guard policy.allows(host: authority) else {
            throw Refusal(error: refuse(request, .misdirectedRequest, "unknown_host",
                                        "this daemon does not answer to the host name '\(authority ?? "")'; add it to http.allowed_hosts to allow it",
                                        why: "Host \(authority ?? "(none)")"))
        }
        let origin = request.headers[.origin]
        if request.method == .options { return try preflight(request, origin: origin) }
        if policy.tokenRequired && !Self.openPaths.contains(request.uri.path) && !authorized(request) {
            throw Refusal(error: refuse(request, .unauthorized, "unauthorized",
                                        "this daemon needs its token: send 'Authorization: Bearer TOKEN' (http.token), or sign in at /login",
                                        why: "no valid token"),
                          headers: [.wwwAuthenticate: "Bearer realm=\"crated\""])
        }
        guard Self.changesState(request.method) else { return try await next(request, context) }

        if let origin {
            guard policy.isOwnOrigin(origin, host: authority) || policy.corsOrigins.contains(origin.lowercased()) else {
                throw Refusal(error: refuse(request, .forbidden, "cross_origin",
                                            "requests that change state must come from this daemon's own page (origin \(origin) is not; http.cors_origins lists others)",
                                            why: "cross-origin, Origin \(origin)"))
            }
        } else if let site = request.headers[Self.secFetchSite], site != "same-origin", site != "none" {
            throw Refusal(error: refuse(request, .forbidden, "cross_origin",
                                        "requests that change state must come from this daemon's own page (Sec-Fetch-Site: \(site))",
                                        why: "cross-site, Sec-Fetch-Site \(site)"))
        }
        return try await next(try await screenBody(request), context)
    }

    /// JSON only, and no more than `http.max_body_bytes`: no HTML form or no-preflight request reaches a handler.
    private func screenBody(_ request: Request) async throws -> Request {
        let limit = policy.http.maxBodyBytes
        let contentType = request.headers[.contentType]
        if let contentType, !Self.isJSON(contentType) {
            throw Refusal(error: refuse(request, .unsupportedMediaType, "unsupported_media_type",
                                        "request bodies must be JSON (Content-Type: application/json), not \(contentType)",
                                        why: "Content-Type \(contentType)"))
        }
        let declaredTooLarge = request.headers[.contentLength].flatMap(Int.init).map { $0 > limit } ?? false
        var request = request
        let seconds = policy.http.idleTimeoutSeconds
        let collected: ByteBuffer?
        do {
            collected = try await Self.within(seconds: seconds) { [request] in
                try await Self.collect(request.body, limit: declaredTooLarge ? 0 : limit)
            }
        } catch is BodyTimeout {
            if declaredTooLarge { throw tooLarge(request, limit) }
            throw refuse(request, .requestTimeout, "request_timeout", "the request body did not arrive within \(seconds) s", why: "slow body")
        }
        guard let buffer = collected else { throw tooLarge(request, limit) }
        if buffer.readableBytes > 0 && contentType == nil {
            throw refuse(request, .unsupportedMediaType, "unsupported_media_type",
                         "request bodies must be JSON: send Content-Type: application/json", why: "body without Content-Type")
        }
        request.body = .init(buffer: buffer)
        return request
    }

    private func preflight(_ request: Request, origin: String?) throws -> Response {
        guard let origin, policy.corsOrigins.contains(origin.lowercased()) else {
            throw refuse(request, .forbidden, "cross_origin", "cross-origin calls are not allowed from \(origin ?? "this page"); http.cors_origins lists the origins that may",
                         why: "preflight from \(origin ?? "(no origin)")")
        }
        var headers: HTTPFields = [:]
        headers[.accessControlAllowMethods] = "GET, POST, PUT, PATCH, DELETE"
        headers[.accessControlAllowHeaders] = "Authorization, Content-Type"
        headers[Self.accessControlMaxAge] = "600"
        return Response(status: .noContent, headers: headers)
    }

    private func authorized(_ request: Request) -> Bool {
        if let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") {
            return policy.http.accepts(token: String(header.dropFirst("bearer ".count)).trimmingCharacters(in: .whitespaces))
        }
        for cookie in request.headers[values: .cookie].flatMap({ $0.split(separator: ";") }) {
            let pair = cookie.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            if pair.count == 2, pair[0] == Self.sessionCookie { return policy.http.accepts(session: String(pair[1])) }
        }
        return false
    }

    /// nosniff and no referrer everywhere; JSON is never cached; HTML gets a strict CSP; CORS headers only for listed origins.
    private func decorate(_ response: inout Response, _ request: Request) {
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[Self.referrerPolicy] = "no-referrer"
        let type = response.headers[.contentType] ?? ""
        if type.hasPrefix("application/json") { response.headers[.cacheControl] = "no-store" }
        if type.hasPrefix("text/html") {
            response.headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
            response.headers[Self.frameOptions] = "DENY"
        }
        if let origin = request.headers[.origin], policy.corsOrigins.contains(origin.lowercased()) {
            response.headers[.accessControlAllowOrigin] = origin
            response.headers[.vary] = "Origin"
        }
    }

    /// Same-origin scripts, styles, pictures, sound (the stream "Listen here" plays) and the web app manifest only (catalog covers come from Apple's https
    /// image hosts); no framing.
    static var contentSecurityPolicy: String {
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: https:; connect-src 'self'; "
            + "manifest-src 'self'; media-src 'self'; "
            + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    }

    /// A 413 that closes the connection (the rest of the body has been read and dropped: see `collect`).
    private func tooLarge(_ request: Request, _ limit: Int) -> APIError {
        var error = refuse(request, .contentTooLarge, "body_too_large",
                           "the request body is larger than \(limit) bytes (http.max_body_bytes)", why: "body over \(limit) bytes")
        error.closesConnection = true
        return error
    }

    /// The body, or nil when it is over `limit` bytes. The rest of a body over the limit is still read, and dropped,
    /// so that a client that sends its whole body before reading the answer (browsers, urllib: no `Expect:
    /// 100-continue`) gets to the 413 instead of blocking on a full socket. The caller bounds the time this takes
    /// (`http.idle_timeout`), which bounds the bytes too (nginx's lingering close does the same).
    static func collect(_ body: RequestBody, limit: Int) async throws -> ByteBuffer? {
        var buffer = ByteBuffer()
        var seen = 0
        for try await part in body {
            seen += part.readableBytes
            if seen <= limit {
                var part = part
                buffer.writeBuffer(&part)
            }
        }
        return seen > limit ? nil : buffer
    }

    /// Logs a refusal (never a header's value that could be a secret) and builds its JSON error.
    private func refuse(_ request: Request, _ status: HTTPResponse.Status, _ code: String, _ message: String, why: String) -> APIError {
        logger.notice("refused \(request.method) \(request.uri.path): \(why) (\(status.code))")
        return APIError(status, code: code, message)
    }

    static func changesState(_ method: HTTPRequest.Method) -> Bool {
        method == .post || method == .put || method == .patch || method == .delete
    }

    static func isJSON(_ contentType: String) -> Bool {
        let media = contentType.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        return media == "application/json"
    }

    struct BodyTimeout: Error {}

    /// Runs `body`, failing with `BodyTimeout` after `seconds` (a client trickling its body holds no task forever).
    static func within<T: Sendable>(seconds: Int, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask { try await Task.sleep(for: .seconds(seconds)); return nil }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else { throw BodyTimeout() }
            return value
        }
    }

    static var secFetchSite: HTTPField.Name { HTTPField.Name("Sec-Fetch-Site") ?? .origin }
    static var referrerPolicy: HTTPField.Name { HTTPField.Name("Referrer-Policy") ?? .xContentTypeOptions }
    static var frameOptions: HTTPField.Name { HTTPField.Name("X-Frame-Options") ?? .xContentTypeOptions }
    static var accessControlMaxAge: HTTPField.Name { HTTPField.Name("Access-Control-Max-Age") ?? .accessControlAllowHeaders }
}
