import CrateCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Who may reach the daemon, decided once at start-up from `http.*` (Docs/HTTP_API.md, "Security").
struct AccessPolicy: Sendable {
    /// `Host` values (lower-cased, port included) the daemon answers to.
    let authorities: Set<String>
    /// Host names from `http.allowed_hosts` without a port: accepted on any port (behind a proxy the port differs).
    let anyPortHosts: Set<String>
    /// Origins allowed to call cross-origin (`http.cors_origins`).
    let corsOrigins: Set<String>
    let http: HTTPSettings
    var tokenRequired: Bool { http.token != nil }

    init(settings: Settings) {
        let port = settings.httpPort
        var names = ["127.0.0.1", "localhost", "[::1]"]
        let bound = settings.httpHost.lowercased()
        if HTTPSettings.isWildcard(bound) {
            names += Self.interfaceAddresses()
        } else {
            names.append(bound.contains(":") ? "[\(bound)]" : bound)
        }
        var authorities = Set(names.map { "\($0):\(port)" })
        if port == 80 { authorities.formUnion(names) }
        var anyPort: Set<String> = []
        for entry in settings.http.allowedHosts {
            if Self.hasPort(entry) { authorities.insert(entry) } else { anyPort.insert(entry) }
        }
        self.authorities = authorities
        anyPortHosts = anyPort
        corsOrigins = Set(settings.http.corsOrigins)
        http = settings.http
    }

    /// Whether `Host` names this daemon (the DNS-rebinding guard: a rebound name is not on the list).
    func allows(host authority: String?) -> Bool {
        guard let authority = authority?.lowercased(), !authority.isEmpty else { return false }
        if authorities.contains(authority) { return true }
        return anyPortHosts.contains(Self.hostPart(authority))
    }

    /// The daemon's own origin as the browser names it: the scheme and the `Host` the page was loaded from.
    func isOwnOrigin(_ origin: String, host authority: String?) -> Bool {
        guard let authority = authority?.lowercased() else { return false }
        let o = origin.lowercased()
        return o == "http://\(authority)" || o == "https://\(authority)"
    }

    private static func hasPort(_ entry: String) -> Bool {
        guard let colon = entry.lastIndex(of: ":") else { return false }
        if entry.hasPrefix("[") { return entry[..<colon].hasSuffix("]") }
        return entry.firstIndex(of: ":") == colon && Int(entry[entry.index(after: colon)...]) != nil
    }

    private static func hostPart(_ authority: String) -> String {
        guard hasPort(authority), let colon = authority.lastIndex(of: ":") else { return authority }
        return String(authority[..<colon])
    }

    /// The machine's own addresses, for a daemon listening on every interface (`0.0.0.0`).
    private static func interfaceAddresses() -> [String] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }
        var out: [String] = []
        var cursor = list
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            guard let addr = entry.pointee.ifa_addr else { continue }
            let family = Int32(addr.pointee.sa_family)
            guard family == AF_INET || family == AF_INET6 else { continue }
            var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            let length = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
            guard getnameinfo(addr, length, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0 else { continue }
            let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.contains("%") { continue }   // link-local with a zone: browsers cannot name it in Host
            out.append(family == AF_INET6 ? "[\(text)]" : text)
        }
        return out
    }
}
