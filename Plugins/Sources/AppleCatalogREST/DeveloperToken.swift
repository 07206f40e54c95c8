import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The developer token sent as `Authorization: Bearer …` on every request: either signed here from the
/// `.p8` key (ES256 JWT, renewed before it runs out) or a ready token from the settings, used as is.
struct DeveloperTokenSource: Sendable {
    enum Origin: Sendable {
        /// The key as its 32 raw bytes: swift-crypto's key type is not `Sendable`, and a key object is
        /// only needed twice a year, when a token is signed.
        case signing(key: Data, teamID: String, keyID: String, keyPath: String)
        /// `expires` is the token's `exp` claim when the token parses as a JWT.
        case ready(token: String, expires: Date?)
    }

    /// 180 days: under Apple's cap of 15 777 000 s (about 182.6 days), with room for clock skew.
    static let lifetime: TimeInterval = 180 * 86_400
    /// A signed token is replaced once less than this is left.
    static let renewMargin: TimeInterval = 86_400

    let origin: Origin
    private var signed: (token: String, expires: Date)?

    init(origin: Origin) {
        self.origin = origin
    }

    /// From the settings: a ready token wins; otherwise the key file is checked and loaded now, so key
    /// problems surface at start-up rather than on the first request.
    init(config: AppleCatalogConfig) throws(AppleCatalogError) {
        if let ready = config.developerToken?.trimmingCharacters(in: .whitespacesAndNewlines), !ready.isEmpty {
            self.init(origin: .ready(token: ready, expires: JWT.expiry(of: ready)))
            return
        }
        guard let teamID = config.teamID, let keyID = config.keyID, let keyPath = config.keyPath else {
            throw .notConfigured(missing: config.missingCredentials)
        }
        let key = try Self.loadKey(path: keyPath)
        self.init(origin: .signing(key: key.rawRepresentation, teamID: teamID, keyID: keyID, keyPath: keyPath))
    }

    /// When the token in use stops working; nil for a ready token without a readable `exp`.
    func expiry(now: Date = Date()) -> Date? {
        switch origin {
        case .ready(_, let expires): expires
        case .signing: signed?.expires ?? now.addingTimeInterval(Self.lifetime)
        }
    }

    /// Whether the token is past its `exp` (only a ready token can be: signed ones are renewed).
    func isExpired(now: Date = Date()) -> Bool {
        if case .ready(_, let expires?) = origin { return expires <= now }
        return false
    }

    /// The token to send now, signing a fresh one when none is cached or the cached one is about to run out.
    mutating func token(now: Date = Date()) throws(AppleCatalogError) -> String {
        switch origin {
        case let .ready(token, expires):
            if let expires, expires <= now { throw .developerTokenExpired }
            return token
        case let .signing(key, teamID, keyID, keyPath):
            if let signed, signed.expires.timeIntervalSince(now) > Self.renewMargin { return signed.token }
            let issued = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
            let expires = issued.addingTimeInterval(Self.lifetime)
            let token: String
            do {
                token = try JWT.sign(key: P256.Signing.PrivateKey(rawRepresentation: key), keyID: keyID, teamID: teamID, issuedAt: issued, expires: expires)
            } catch {
                throw .badKey(path: keyPath, reason: "signing failed")
            }
            signed = (token, expires)
            return token
        }
    }

    /// Reads the `.p8` key: refused when group or others may read it (it signs for the whole developer
    /// account), and checked to be a P-256 private key.
    static func loadKey(path: String) throws(AppleCatalogError) -> P256.Signing.PrivateKey {
        var st = stat()
        guard stat(path, &st) == 0 else { throw .keyFileUnreadable(path: path, reason: Self.errnoText()) }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw .keyFileUnreadable(path: path, reason: "not a regular file") }
        let mode = Int(st.st_mode & 0o7777)
        if mode & 0o077 != 0 { throw .keyFileTooOpen(path: path, mode: mode) }
        guard access(path, R_OK) == 0 else { throw .keyFileUnreadable(path: path, reason: Self.errnoText()) }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .keyFileUnreadable(path: path, reason: "could not be read")
        }
        guard let pem = String(data: data, encoding: .utf8), pem.contains("-----BEGIN") else {
            throw .badKey(path: path, reason: "no PEM text (expected -----BEGIN PRIVATE KEY-----)")
        }
        do {
            return try P256.Signing.PrivateKey(pemRepresentation: pem)
        } catch {
            throw .badKey(path: path, reason: "the PEM does not hold a P-256 private key")
        }
    }

    private static func errnoText() -> String {
        String(cString: strerror(errno)).lowercased()
    }
}

/// The few JWT pieces the developer token needs: ES256 signing and reading `exp` back.
enum JWT {
    struct Header: Codable { var alg: String; var kid: String; var typ: String? }
    struct Claims: Codable { var iss: String; var iat: Int; var exp: Int }

    static func sign(key: P256.Signing.PrivateKey, keyID: String, teamID: String,
                     issuedAt: Date, expires: Date) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let header = Header(alg: "ES256", kid: keyID, typ: "JWT")
        let claims = Claims(iss: teamID, iat: Int(issuedAt.timeIntervalSince1970), exp: Int(expires.timeIntervalSince1970))
        let input = try base64url(encoder.encode(header)) + "." + base64url(encoder.encode(claims))
        // JWS wants the raw 64-byte r‖s, not the DER form (RFC 7518 §3.4).
        let signature = try key.signature(for: Data(input.utf8)).rawRepresentation
        return input + "." + base64url(signature)
    }

    /// The `exp` claim of a token when it is a readable JWT; nil otherwise (the token is then used blind).
    static func expiry(of token: String) -> Date? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = decodeBase64url(parts[1]),
              let object = try? JSONSerialization.jsonObject(with: payload) as? [String: Any] else { return nil }
        let exp: Double? = switch object["exp"] {
        case let n as NSNumber: n.doubleValue
        case let s as String: Double(s)
        default: nil
        }
        return exp.map { Date(timeIntervalSince1970: $0) }
    }

    static func base64url(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decodeBase64url(_ text: Substring) -> Data? {
        var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        s += String(repeating: "=", count: (4 - s.count % 4) % 4)
        return Data(base64Encoded: s)
    }
}
