import AppleCatalogREST
import Crypto
import Foundation

/// A developer key made for one test: a fresh P-256 key written as a `.p8` (PKCS#8 PEM) with mode 600,
/// plus the ids the fake server expects in the JWT. Nothing here comes from Apple.
struct TestKeys: Sendable {
    static let teamID = "TEAM123456"
    static let keyID = "KEY1234567"

    let directory: URL
    let keyPath: String
    /// The public key's raw bytes (swift-crypto's key types are not `Sendable`).
    let publicKey: Data
    /// The raw key, to sign ready-made tokens in tests.
    let privateKeyBytes: Data

    init() throws {
        let key = P256.Signing.PrivateKey()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("crate-catalog-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        keyPath = directory.appendingPathComponent("AuthKey_\(Self.keyID).p8").path
        try Self.write(key.pemRepresentation, to: keyPath, mode: 0o600)
        publicKey = key.publicKey.rawRepresentation
        privateKeyBytes = key.rawRepresentation
    }

    static func write(_ text: String, to path: String, mode: Int) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    }

    func config(_ server: FakeAppleMusic, userToken: String? = FakeAppleMusic.goodUserToken,
                requestsPerSecond: Double = 200, maxRetries: Int = 3) -> AppleCatalogConfig {
        AppleCatalogConfig(teamID: Self.teamID, keyID: Self.keyID, keyPath: keyPath, userToken: userToken,
                           baseURL: server.baseURL, requestsPerSecond: requestsPerSecond, timeoutSeconds: 10,
                           maxRetries: maxRetries, retryBaseDelay: 0.05)
    }

    /// An ES256 token signed here (for "ready developer token" tests).
    func readyToken(issuedAt: Date, expires: Date, keyID: String = TestKeys.keyID) throws -> String {
        let key = try P256.Signing.PrivateKey(rawRepresentation: privateKeyBytes)
        func b64(_ data: Data) -> String {
            data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        let header = #"{"alg":"ES256","kid":"\#(keyID)"}"#
        let claims = #"{"iss":"\#(Self.teamID)","iat":\#(Int(issuedAt.timeIntervalSince1970)),"exp":\#(Int(expires.timeIntervalSince1970))}"#
        let input = b64(Data(header.utf8)) + "." + b64(Data(claims.utf8))
        return input + "." + b64(try key.signature(for: Data(input.utf8)).rawRepresentation)
    }

    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}
