import CrateTestSupport
import Crypto
import Foundation
import HTTPTestSupport
import Hummingbird

/// A loopback stand-in for api.music.apple.com, answering with the documented JSON shapes (fact sheet
/// §2–§5, invented ids and names). Every request must carry `Authorization: Bearer <jwt>` whose ES256
/// signature verifies with the test key's public key, with the right `alg`/`kid` and `iss`/`iat`/`exp`
/// (else 401, empty body); `/v1/me/…` also needs the right `Music-User-Token` (else 403).
/// A test can answer any request itself through `override`; the rest goes to `FakeAppleMusicRoutes`.
/// With `Options.previews`, songs' preview URLs point back at this server (`/previews/<song id>.m4a`), which answers
/// them with the files of that folder, without a token (Apple's audio host needs none); the log records them too.
final class FakeAppleMusic: Sendable {
    static let goodUserToken = "music-user-token-OK-0123456789"

    struct Seen: Sendable {
        var method: String
        var path: String
        /// Decoded query (keys too: `ids[albums]`).
        var query: [String: String]
        var rawQuery: String
        var authorization: String?
        var userToken: String?
        var body: String
        var at: ContinuousClock.Instant
        /// Whether the JWT verified; requests that did not are answered 401 (unless overridden).
        var jwtProblem: String?

        var segments: [String] { path.split(separator: "/").map(String.init) }
        func int(_ name: String) -> Int? { query[name].flatMap { Int($0) } }
    }

    struct Reply: Sendable {
        var status: Int
        var body: String = ""
        var headers: [String: String] = [:]

        static func json(_ body: String, status: Int = 200) -> Reply { Reply(status: status, body: body) }
        static func status(_ status: Int) -> Reply { Reply(status: status) }
        static func error(_ status: Int, code: String, title: String, detail: String? = nil, parameter: String? = nil) -> Reply {
            var item: [String: Any] = ["id": "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "title": title, "status": String(status), "code": code]
            if let detail { item["detail"] = detail }
            if let parameter { item["source"] = ["parameter": parameter] }
            return Reply(status: status, body: CatalogFixtures.json(["errors": [item]]))
        }
    }

    struct Options: Sendable {
        var userToken: String = FakeAppleMusic.goodUserToken
        var meStorefront: String = "us"
        var libraryCount: Int = 7
        /// The `kid` the server accepts (a different one makes every request a 401).
        var keyID: String = TestKeys.keyID
        var override: (@Sendable (Seen) async -> Reply?)?
        /// A folder of `<song id>.m4a` files: songs' previews are then this server's `/previews/<song id>.m4a` (a song
        /// whose file is missing answers 404). Nil: the fixtures' Apple URLs, which tests never fetch.
        var previews: URL?
        /// This server's address when `previews` is set (filled in by `start`).
        var previewBase: String?
    }

    let baseURL: URL
    let log = RequestLog()
    let state = FakeState()
    private let options: Options
    private let publicKey: Data
    private let server: LoopbackServer

    private init(baseURL: URL, options: Options, publicKey: Data, server: LoopbackServer) {
        self.baseURL = baseURL
        self.options = options
        self.publicKey = publicKey
        self.server = server
    }

    /// Starts a server on 127.0.0.1 on a free port.
    static func start(keys: TestKeys, _ options: Options = Options()) async throws -> FakeAppleMusic {
        var options = options
        let holder = ServerHolder()
        let responder = CallbackResponder<BasicRequestContext> { request, _ in
            guard let server = await holder.server else { return Response(status: .serviceUnavailable) }
            return try await server.respond(request)
        }
        let server = try await LoopbackServer.start(responder)
        guard let url = URL(string: "http://127.0.0.1:\(server.port)") else {
            await server.stop()
            throw FakeError.noPort
        }
        if options.previews != nil { options.previewBase = url.absoluteString }
        let fake = FakeAppleMusic(baseURL: url, options: options, publicKey: keys.publicKey, server: server)
        await holder.set(fake)
        return fake
    }

    func stop() async {
        await server.stop()
    }

    enum FakeError: Error { case noPort }

    // MARK: - Requests

    private func respond(_ request: Request) async throws -> Response {
        var request = request
        let body = try await request.collectBody(upTo: 1 << 20)
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        let rawQuery = request.uri.query ?? ""
        var seen = Seen(method: request.method.rawValue, path: request.uri.path, query: Self.decodeQuery(rawQuery), rawQuery: rawQuery,
                        authorization: headers["authorization"], userToken: headers["music-user-token"],
                        body: String(buffer: body), at: .now)
        seen.jwtProblem = verifyJWT(seen.authorization)
        await log.append(seen)
        if let folder = options.previews, seen.method == "GET", seen.path.hasPrefix("/previews/") {
            return await preview(seen, from: folder)
        }
        var reply = await options.override?(seen)
        if reply == nil { reply = await answer(seen) }
        guard let reply else { return Response(status: .internalServerError) }
        await log.answered(seen, status: reply.status)
        var fields = HTTPFields()
        if !reply.body.isEmpty { fields[.contentType] = "application/json; charset=utf-8" }
        if let retryAfter = reply.headers["Retry-After"] { fields[.retryAfter] = retryAfter }
        return Response(status: .init(code: reply.status), headers: fields,
                        body: reply.body.isEmpty ? .init() : .init(byteBuffer: ByteBuffer(string: reply.body)))
    }

    /// A song's preview file (`audio/mp4`), as Apple's audio host serves it; 404 for an unknown song.
    private func preview(_ seen: Seen, from folder: URL) async -> Response {
        let name = String(seen.path.dropFirst("/previews/".count))
        guard !name.contains("/"), let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path) else {
            await log.answered(seen, status: 404)
            return Response(status: .notFound)
        }
        await log.answered(seen, status: 200)
        var fields = HTTPFields()
        fields[.contentType] = "audio/mp4"
        return Response(status: .ok, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// What Apple would answer: 401 (empty) for a bad developer token, 403 for a bad user token on
    /// `/v1/me`, else the catalog.
    private func answer(_ seen: Seen) async -> Reply {
        if seen.jwtProblem != nil { return .status(401) }
        if seen.path.hasPrefix("/v1/me/") {
            guard let token = seen.userToken else { return .status(403) }
            guard token == options.userToken else {
                return .error(403, code: "40300", title: "Forbidden", detail: "Invalid authentication")
            }
        }
        return await FakeAppleMusicRoutes.answer(seen, options: options, state: state)
    }

    /// Query keys and values, percent-decoded (`ids%5Balbums%5D` → `ids[albums]`, `+` → space).
    static func decodeQuery(_ raw: String) -> [String: String] {
        var result: [String: String] = [:]
        for item in raw.split(separator: "&") {
            let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ s: Substring) -> String {
                let plus = s.replacingOccurrences(of: "+", with: " ")
                return plus.removingPercentEncoding ?? plus
            }
            result[decode(pair[0])] = pair.count > 1 ? decode(pair[1]) : ""
        }
        return result
    }

    /// Checks the developer token as Apple documents it; nil when it is fine, else what is wrong.
    private func verifyJWT(_ authorization: String?) -> String? {
        guard let authorization, authorization.hasPrefix("Bearer ") else { return "no bearer token" }
        let parts = authorization.dropFirst("Bearer ".count).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Self.base64url(parts[0]), let claimsData = Self.base64url(parts[1]),
              let signatureData = Self.base64url(parts[2]) else { return "not a JWT" }
        guard let header = try? JSONSerialization.jsonObject(with: headerData) as? [String: Any],
              let claims = try? JSONSerialization.jsonObject(with: claimsData) as? [String: Any] else { return "unreadable JWT" }
        guard header["alg"] as? String == "ES256" else { return "alg is not ES256" }
        guard header["kid"] as? String == options.keyID else { return "wrong kid" }
        guard claims["iss"] as? String == TestKeys.teamID else { return "wrong iss" }
        guard let iat = (claims["iat"] as? NSNumber)?.doubleValue, let exp = (claims["exp"] as? NSNumber)?.doubleValue else {
            return "no iat/exp"
        }
        let now = Date().timeIntervalSince1970
        guard iat <= now + 60 else { return "iat in the future" }
        guard exp > now else { return "expired" }
        guard exp - now <= 15_777_000 else { return "exp too far" }
        guard signatureData.count == 64 else { return "signature is not raw r‖s" }
        guard let key = try? P256.Signing.PublicKey(rawRepresentation: publicKey),
              let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureData),
              key.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8)) else { return "bad signature" }
        return nil
    }

    static func base64url(_ s: Substring) -> Data? {
        var t = s.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        t += String(repeating: "=", count: (4 - t.count % 4) % 4)
        return Data(base64Encoded: t)
    }
}

/// Every request the server saw, in arrival order.
actor RequestLog {
    private(set) var seen: [FakeAppleMusic.Seen] = []
    private(set) var statuses: [Int] = []
    private(set) var answeredCount = 0

    func append(_ s: FakeAppleMusic.Seen) { seen.append(s) }
    func answered(_ s: FakeAppleMusic.Seen, status: Int) {
        statuses.append(status)
        answeredCount += 1
    }

    func requests(to path: String) -> [FakeAppleMusic.Seen] { seen.filter { $0.path == path } }
    func count(pathPrefix: String) -> Int { seen.filter { $0.path.hasPrefix(pathPrefix) }.count }

    /// Waits until at least `n` requests arrived (at most 30 s: a hang guard).
    func waitFor(_ n: Int) async throws {
        try await waitUntilAsync("\(n) requests at the fake catalog", seconds: 30) { seen.count >= n }
    }
}

/// Server-side state: counters for scripted failures, the ratings that were set.
actor FakeState {
    private var counters: [String: Int] = [:]
    private(set) var ratings: [String: Int] = [:]

    /// How many times `key` was counted before (0 the first time).
    func next(_ key: String) -> Int {
        let n = counters[key, default: 0]
        counters[key] = n + 1
        return n
    }

    func rate(_ id: String, _ value: Int) { ratings[id] = value }
    func unrate(_ id: String) -> Bool { ratings.removeValue(forKey: id) != nil }
}

private actor ServerHolder {
    var server: FakeAppleMusic?
    func set(_ s: FakeAppleMusic) { server = s }
}

/// Holds the replies that wait on it until the test opens it: a server that has not answered yet, for exactly as
/// long as the test needs (a sleep would answer on its own time, on a slow machine before the test looked).
actor ReplyGate {
    private var isOpen = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        guard !isOpen else { return }
        await withCheckedContinuation { waiting.append($0) }
    }

    func open() {
        isOpen = true
        for w in waiting { w.resume() }
        waiting = []
    }
}
