import Crypto
import Foundation

// Apart from HTTPSettings.swift, which needs no Crypto, so that Fuzz/Config can build the settings on their own.
extension HTTPSettings {
    /// Whether a presented bearer token is the configured one (compared in constant time).
    public func accepts(token presented: String) -> Bool {
        guard let token else { return true }
        return Self.sameBytes(presented, token)
    }

    /// The web page's session cookie: an HMAC of the token, so the cookie is not the token itself, survives a restart
    /// and stops working when the token changes.
    public var sessionValue: String? {
        token.map { token in
            let mac = HMAC<SHA256>.authenticationCode(for: Data("crate web session 1".utf8), using: SymmetricKey(data: Data(token.utf8)))
            return mac.map { String(format: "%02x", $0) }.joined()
        }
    }

    public func accepts(session presented: String) -> Bool {
        guard let value = sessionValue else { return true }
        return Self.sameBytes(presented, value)
    }
}
