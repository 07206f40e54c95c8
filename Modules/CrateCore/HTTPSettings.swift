import Foundation

/// `http.*` beyond the address: who may reach the daemon and how much they may send (Docs/HTTP_API.md, "Security").
/// The token is a secret: never printed or logged.
public struct HTTPSettings: Sendable, Hashable {
    /// Host names the daemon answers to besides the loopback names and its own bound address (DNS-rebinding guard).
    public var allowedHosts: [String] = []
    /// Web origins (`https://app.example:8443`) that may call the API cross-origin; none by default.
    public var corsOrigins: [String] = []
    /// The bearer token every request must carry when set; required to listen off loopback.
    public var token: String?
    /// Where the token came from when it was read from `http.token_file` (for `crate config`).
    public var tokenFile: String?
    /// Largest request body accepted (bytes).
    public var maxBodyBytes = 1 << 20
    /// Event-stream (SSE) clients served at once.
    public var maxEventClients = 32
    /// Connections open at once.
    public var maxConnections = 256
    /// Seconds a connection may sit without a complete request (slow or idle clients are closed).
    public var idleTimeoutSeconds = 30

    public init() {}

    public static let minimumTokenLength = 16

    /// Whether `host` (as written in `http.address`) only reaches this machine.
    public static func isLoopback(_ host: String) -> Bool {
        let h = host.lowercased()
        if h == "localhost" || h == "::1" || h == "0:0:0:0:0:0:0:1" { return true }
        let parts = h.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// Whether `host` means every interface (`0.0.0.0`, `::`).
    public static func isWildcard(_ host: String) -> Bool {
        host == "0.0.0.0" || host == "::" || host == "*"
    }

    /// Secrets compared in constant time (a token, a session cookie, an MPD password).
    public static func sameBytes(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

extension Settings {
    /// Listening off loopback without a token would let anyone on the network drive the daemon.
    public func checkHTTPExposure() throws {
        if !HTTPSettings.isLoopback(httpHost) && http.token == nil {
            throw ConfigError.tokenRequired(address: "\(httpHost):\(httpPort)")
        }
    }

    /// The address a local client connects to: the bound one, or loopback when the daemon listens on every interface.
    public var httpClientAddress: String {
        let host = HTTPSettings.isWildcard(httpHost) ? "127.0.0.1" : httpHost
        return host.contains(":") ? "[\(host)]:\(httpPort)" : "\(host):\(httpPort)"
    }
}
