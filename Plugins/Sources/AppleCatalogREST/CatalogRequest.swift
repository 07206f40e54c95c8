import Foundation

/// One call to the API: a method and a root-relative target (`/v1/…?query`, already percent-encoded),
/// as built here or as Apple's `next` links give it.
struct CatalogRequest: Sendable {
    var method: String
    var target: String
    /// What the call is about, for errors ("album 1616728060"); the path when nothing better is known.
    var label: String
    var body: Data?
    /// Catalog GETs may come from the cache; personal calls and writes never do.
    var cacheable: Bool

    init(method: String = "GET", target: String, label: String? = nil, body: Data? = nil, cacheable: Bool? = nil) {
        self.method = method
        self.target = target
        self.label = label ?? CatalogURL.path(of: target)
        self.body = body
        self.cacheable = cacheable ?? (method == "GET" && target.hasPrefix("/v1/catalog/"))
    }

    static func get(_ segments: [String], _ query: [(String, String)] = [], label: String? = nil) -> CatalogRequest {
        CatalogRequest(target: CatalogURL.target(segments, query), label: label)
    }

    /// Personal endpoints need the Music-User-Token.
    var isPersonal: Bool { target.hasPrefix("/v1/me/") || CatalogURL.path(of: target) == "/v1/me" }

    /// The request for Apple's `next` link, with our page size (Apple often drops `limit` from `next`,
    /// and the default page is smaller than what was asked for).
    func following(_ next: String, limit: Int?) -> CatalogRequest? {
        guard var target = CatalogURL.rootRelative(next) else { return nil }
        if let limit { target = CatalogURL.setting("limit", to: String(limit), in: target) }
        return CatalogRequest(method: method, target: target, label: label, body: body, cacheable: cacheable)
    }
}

/// Paths, queries and `next` links, percent-encoded by hand so the wire form is predictable
/// (`ids%5Balbums%5D=1,2`, `term=miles+davis`).
enum CatalogURL {
    /// Unreserved characters, plus the comma that separates ids and types.
    private static let queryAllowed = CharacterSet(charactersIn:
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~,")
    private static let segmentAllowed = CharacterSet(charactersIn:
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")

    static func target(_ segments: [String], _ query: [(String, String)] = []) -> String {
        let path = "/v1/" + segments.map(encodeSegment).joined(separator: "/")
        guard !query.isEmpty else { return path }
        return path + "?" + query.map { encodeQuery($0.0) + "=" + encodeQuery($0.1) }.joined(separator: "&")
    }

    static func encodeSegment(_ s: String) -> String {
        s.addingPercentEncoding(withAllowedCharacters: segmentAllowed) ?? s
    }

    /// Spaces become `+` as Apple's search documentation shows; a literal `+` becomes `%2B`.
    static func encodeQuery(_ s: String) -> String {
        s.split(separator: " ", omittingEmptySubsequences: false)
            .map { String($0).addingPercentEncoding(withAllowedCharacters: queryAllowed) ?? String($0) }
            .joined(separator: "+")
    }

    static func path(of target: String) -> String {
        String(target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
    }

    /// A `next` link as a root-relative target. An absolute link keeps only its path and query: requests
    /// (and the bearer token) only ever go to the configured base URL.
    static func rootRelative(_ next: String) -> String? {
        let trimmed = next.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("/") { return trimmed }
        guard let components = URLComponents(string: trimmed), components.scheme != nil,
              components.percentEncodedPath.hasPrefix("/") else { return nil }
        return components.percentEncodedPath + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
    }

    /// The target with `name=value` in its query, replacing an existing `name`.
    static func setting(_ name: String, to value: String, in target: String) -> String {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = String(parts[0])
        var items = parts.count > 1 ? parts[1].split(separator: "&").map(String.init) : []
        items.removeAll { $0 == name || $0.hasPrefix(name + "=") }
        items.append(encodeQuery(name) + "=" + encodeQuery(value))
        return path + "?" + items.joined(separator: "&")
    }

    /// The value of a query parameter in a target, decoded.
    static func value(of name: String, in target: String) -> String? {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count > 1 else { return nil }
        for item in parts[1].split(separator: "&") {
            let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = String(pair[0]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
            guard key == name else { continue }
            let value = pair.count > 1 ? String(pair[1]) : ""
            return value.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? value
        }
        return nil
    }

    /// The API root as text without a trailing `/` or `/v1`, so `base + target` never doubles either.
    static func root(of baseURL: URL) -> String {
        var s = baseURL.absoluteString
        while s.hasSuffix("/") { s.removeLast() }
        if s.hasSuffix("/v1") { s.removeLast(3) }
        return s
    }
}
