public import CrateDomain
public import Foundation

/// The Apple Music API over REST. One client per daemon: every request goes through its rate limiter,
/// retry policy and cache, and carries a developer token it signs and renews itself.
///
/// Endpoints live in the extensions (`+Storefront`, `+Catalog`, `+Personal`, `+Auth`); this file holds the
/// request path.
public actor AppleCatalogClient {
    public nonisolated let config: AppleCatalogConfig
    /// `scheme://host[:port]` (plus any path prefix) that targets (`/v1/…`) are appended to.
    nonisolated let root: String
    let transport: CatalogTransport
    var developerToken: DeveloperTokenSource
    let userToken: UserToken
    var limiter: SharedRequestWindow
    var cache: ResponseCache
    let retry: RetryPolicy
    var knownStorefront: String?
    /// Callers waiting for the storefront lookup another caller started (see `+Storefront`).
    var storefrontLookupRunning = false
    var storefrontWaiters: [Int: CheckedContinuation<Result<String, AppleCatalogError>, Never>] = [:]
    var nextStorefrontWaiter = 0

    /// Loads the key (or reads the ready token) now: a missing, unreadable, too open or malformed key
    /// throws its `AppleCatalogError` here rather than on the first request.
    public init(config: AppleCatalogConfig) throws(AppleCatalogError) {
        self.config = config
        root = CatalogURL.root(of: config.baseURL)
        developerToken = try DeveloperTokenSource(config: config)
        userToken = UserToken(config: config)
        // As many connections as one second's burst may need (6 to 32).
        let burst = config.requestsPerSecond.isFinite ? min(32, max(6, config.requestsPerSecond.rounded(.up))) : 32
        transport = CatalogTransport(connections: Int(burst))
        limiter = SharedRequestWindow(rate: config.requestsPerSecond, path: config.rateStateFile)
        cache = ResponseCache(lifetime: config.cacheLifetime)
        retry = RetryPolicy(maxRetries: max(0, config.maxRetries), baseDelay: max(0, config.retryBaseDelay))
    }

    /// Whether the ready developer token from the settings is past its `exp` (a signed one never is).
    public nonisolated func readyTokenExpired(now: Date = Date()) -> Bool {
        guard let ready = config.developerToken?.trimmingCharacters(in: .whitespacesAndNewlines), !ready.isEmpty,
              let expires = JWT.expiry(of: ready) else { return false }
        return expires <= now
    }

    /// Whether a Music-User-Token is set (personal endpoints need one).
    public nonisolated var hasUserToken: Bool { userToken.token != nil }

    /// Forgets every cached answer (after a storefront change, or on request).
    public func clearCache() {
        cache.removeAll()
        knownStorefront = nil
    }

    // MARK: - The request path

    /// The body of a 2xx answer, from the cache when the request may be cached; any other answer
    /// becomes its `AppleCatalogError`.
    func fetch(_ request: CatalogRequest) async throws(AppleCatalogError) -> Data {
        let key = cacheKey(request)
        if let key, let data = cache.get(key) { return data }
        let reply = try await exchange(request)
        guard (200..<300).contains(reply.status) else { throw error(for: reply, request) }
        if let key { cache.put(key, reply.data) }
        return reply.data
    }

    /// The body, or nil when Apple answers 404 (a missing rating, a library list past its end).
    func fetchIfFound(_ request: CatalogRequest) async throws(AppleCatalogError) -> Data? {
        do {
            return try await fetch(request)
        } catch {
            if case .notFound = error { return nil }
            throw error
        }
    }

    private func cacheKey(_ request: CatalogRequest) -> String? {
        guard request.cacheable, request.method == "GET", cache.isEnabled else { return nil }
        return ResponseCache.key(url: root + request.target, withUserToken: userToken.token != nil)
    }

    /// Sends a request, paced by the rate window, retrying 429s and 5xx with backoff. Returns the
    /// final answer whatever its status.
    func exchange(_ request: CatalogRequest) async throws(AppleCatalogError) -> CatalogTransport.Reply {
        guard !Task.isCancelled else { throw .cancelled }
        guard let url = URL(string: root + request.target) else {
            throw .invalidRequest("cannot make a URL of \(CatalogURL.path(of: request.target))")
        }
        var exchange = CatalogTransport.Request(url: url.absoluteString, method: request.method,
                                                headers: ["Authorization: Bearer \(try developerToken.token())",
                                                          "Accept: application/json"])
        if request.isPersonal {
            guard let token = userToken.token else { throw .userTokenMissing }
            exchange.headers.append("Music-User-Token: \(token)")
        }
        if let body = request.body {
            exchange.body = body
            exchange.headers.append("Content-Type: application/json")
        }

        var attempt = 0
        while true {
            try await pace()
            let reply: CatalogTransport.Reply
            do {
                reply = try await transport.send(exchange, timeout: config.timeoutSeconds)
            } catch {
                switch error {
                case .cancelled:
                    throw .cancelled
                case .timedOut:
                    throw .transport("no answer within \(Self.seconds(config.timeoutSeconds))")
                case .connectionLost where attempt < retry.maxRetries:
                    attempt += 1
                    continue
                case .connectionLost:
                    throw .transport("the connection was lost")
                case .other(let reason):
                    throw .transport(reason)
                }
            }
            guard reply.status == 429 || [500, 502, 503, 504].contains(reply.status) else { return reply }
            let retryAfter = RetryPolicy.retryAfterSeconds(reply.retryAfter)
            guard attempt < retry.maxRetries, let delay = retry.delay(afterAttempt: attempt, retryAfter: retryAfter) else {
                throw reply.status == 429 ? .rateLimited(retries: attempt) : .server(status: reply.status)
            }
            // Apple throttles the whole developer team: every request of this client waits, not just this one.
            if reply.status == 429 { limiter.pause(until: .now + .seconds(delay)) }
            try await Self.sleep(.seconds(delay))
            attempt += 1
        }
    }

    /// Waits until the rate window has room for this request.
    private func pace() async throws(AppleCatalogError) {
        while let more = limiter.take() { try await Self.sleep(more) }
    }

    static func sleep(_ duration: Duration) async throws(AppleCatalogError) {
        do { try await Task.sleep(for: duration) } catch { throw .cancelled }
    }

    /// A non-2xx answer as a short reason: Apple's error envelope gives at most its `detail`.
    private func error(for reply: CatalogTransport.Reply, _ request: CatalogRequest) -> AppleCatalogError {
        let envelope = ErrorDocument.read(reply.data)
        let summary = envelope?.summary
        switch reply.status {
        case 400:
            return .invalidRequest(summary ?? "bad request for \(request.label) (HTTP 400)")
        case 401:
            // Bodies of 401s are often empty: the status alone decides.
            return developerToken.isExpired() ? .developerTokenExpired : .developerTokenRejected
        case 403:
            if envelope?.errors.contains(where: { $0.code == "40015" }) == true { return .subscriptionRequired }
            if request.isPersonal { return .userTokenRejected }
            return .invalidRequest(summary ?? "access to \(request.label) denied (HTTP 403)")
        case 404:
            return .notFound(request.label)
        case 429:
            return .rateLimited(retries: 0)
        case 500...:
            return .server(status: reply.status)
        default:
            return .badResponse(endpoint: CatalogURL.path(of: request.target),
                                reason: "HTTP \(reply.status)" + (summary.map { ": \($0)" } ?? ""))
        }
    }

    /// Decodes a body, turning a malformed one into `badResponse` naming the endpoint.
    nonisolated func decode<T: Decodable>(_ type: T.Type, _ data: Data, _ request: CatalogRequest) throws(AppleCatalogError) -> T {
        let endpoint = CatalogURL.path(of: request.target)
        guard !data.isEmpty else { throw .badResponse(endpoint: endpoint, reason: "empty body") }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch let error as DecodingError {
            throw .badResponse(endpoint: endpoint, reason: Self.reason(error))
        } catch {
            throw .badResponse(endpoint: endpoint, reason: "unreadable body")
        }
    }

    private nonisolated static func reason(_ error: DecodingError) -> String {
        func at(_ path: [any CodingKey]) -> String {
            path.isEmpty ? "" : " at " + path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not valid JSON" : "unreadable value\(at(context.codingPath))"
        case let .keyNotFound(key, context):
            return "no \"\(key.stringValue)\"\(at(context.codingPath))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "unexpected value\(at(context.codingPath))"
        @unknown default:
            return "unreadable body"
        }
    }

    private nonisolated static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : String(format: "%.1f s", value)
    }

    // MARK: - Paging

    /// What one page gave: the items kept, how many resources it held, and Apple's `next`.
    struct PageContent<Item> {
        var items: [Item]
        var count: Int
        var next: String?
    }

    /// Follows `next` from `first` until `want` items were kept or the list ends. `pageSize` is the
    /// endpoint's maximum (nil: send no `limit`); with `exact`, the last page asks only for what is
    /// missing, so the returned `next` points right after the last item. A page without resources,
    /// a `next` seen before, or `maxPages` ends the walk; with `endOn404`, so does a 404 (library lists).
    func follow<Item>(_ first: CatalogRequest, pageSize: Int?, want: Int, exact: Bool = true, endOn404: Bool = false,
                      maxPages: Int = 40,
                      page: (Data, CatalogRequest) throws(AppleCatalogError) -> PageContent<Item>)
        async throws(AppleCatalogError) -> (items: [Item], next: String?) {
        guard want > 0 else { return ([], nil) }
        func limit(_ have: Int) -> Int? {
            pageSize.map { exact ? min($0, want - have) : $0 }
        }
        var request = first
        if let size = limit(0) { request.target = CatalogURL.setting("limit", to: String(size), in: request.target) }
        var items: [Item] = []
        var seen: Set<String> = [request.target]
        for _ in 0..<maxPages {
            // Library lists answer 404 instead of an empty page past their end (and for an empty library).
            guard let data = endOn404 ? try await fetchIfFound(request) : try await fetch(request) else { return (items, nil) }
            let content = try page(data, request)
            items += content.items
            if items.count >= want { return (Array(items.prefix(want)), content.next) }
            guard content.count > 0, let next = content.next,
                  let following = request.following(next, limit: limit(items.count)),
                  seen.insert(following.target).inserted else { return (items, content.next) }
            request = following
        }
        return (items, nil)
    }
}

/// The client is the catalog Core and the feeds use (its charts and album search also page genre browsing).
extension AppleCatalogClient: MusicCatalog {}
