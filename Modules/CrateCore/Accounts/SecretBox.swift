import Crypto
import Foundation

/// Seals account passwords with AES-GCM under a key kept in the data folder (mode 0600). Subsonic's token sign-in
/// (md5 of password and salt) needs the password itself, so a one-way hash cannot serve; the key beside the database
/// keeps a copied database alone from giving the passwords away (Navidrome does the same).
struct SecretBox: Sendable {
    let keyURL: URL

    func seal(_ text: String) throws(AccountError) -> Data {
        do {
            guard let combined = try AES.GCM.seal(Data(text.utf8), using: try key()).combined else {
                throw AccountError.secretKey(path: keyURL.path, why: "sealing failed")
            }
            return combined
        } catch let error as AccountError {
            throw error
        } catch {
            throw AccountError.secretKey(path: keyURL.path, why: "\(error)")
        }
    }

    /// The password sealed in `data`; nil when it was sealed under another key (the key file was replaced).
    func open(_ data: Data) throws(AccountError) -> String? {
        let key = try key()
        guard let box = try? AES.GCM.SealedBox(combined: data), let plain = try? AES.GCM.open(box, using: key) else { return nil }
        return String(decoding: plain, as: UTF8.self)
    }

    /// The key, made on first use: 32 random bytes, written with mode 0600 before any password is sealed.
    private func key() throws(AccountError) -> SymmetricKey {
        let manager = FileManager.default
        if let bytes = manager.contents(atPath: keyURL.path) {
            guard bytes.count == 32 else { throw AccountError.secretKey(path: keyURL.path, why: "it holds \(bytes.count) bytes, not 32") }
            return SymmetricKey(data: bytes)
        }
        let key = SymmetricKey(size: .bits256)
        let bytes = key.withUnsafeBytes { Data($0) }
        do {
            try manager.createDirectory(at: keyURL.deletingLastPathComponent(), withIntermediateDirectories: true)
            guard manager.createFile(atPath: keyURL.path, contents: bytes, attributes: [.posixPermissions: 0o600]) else {
                throw AccountError.secretKey(path: keyURL.path, why: "it cannot be written")
            }
        } catch let error as AccountError {
            throw error
        } catch {
            throw AccountError.secretKey(path: keyURL.path, why: "\(error)")
        }
        return key
    }
}
