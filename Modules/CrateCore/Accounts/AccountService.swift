public import CrateDomain
import CrateStorage
import Crypto
import Foundation
import Logging
import Synchronization

/// How a client signs in (Subsonic's three ways): the password itself (already decoded from `enc:` hex), the token
/// md5(password + salt) with its salt, or an API key (OpenSubsonic's apiKeyAuthentication).
public enum Credentials: Sendable {
    case password(user: String, password: String)
    case token(user: String, token: String, salt: String)
    case apiKey(String)
}

/// The household's accounts: adding, removing, passwords and API keys, and signing in with failed attempts slowed
/// down per name and address. No secret is ever logged.
public final class AccountService: Sendable {
    let store: LibraryStore
    let logger: Logger
    private let box: SecretBox
    private let failures = Mutex<[String: Failures]>([:])

    struct Failures {
        var count: Int
        var last: ContinuousClock.Instant
        var refusedSince: Int = 0
    }

    /// Failed sign-ins that are checked before back-off starts, and the longest wait it reaches.
    public static let freeFailures = 3
    static let longestWait = 60.0

    init(store: LibraryStore, dataDirectory: URL, logger: Logger) {
        self.store = store
        self.logger = logger
        box = SecretBox(keyURL: dataDirectory.appendingPathComponent("account.key"))
    }

    public func accounts() throws -> [Account] { try store.accountRecords().map(\.account) }
    public func account(named name: String) throws -> Account? { try store.accountRecord(named: name)?.account }
    /// Whose favorites and plays are Crate's own; nil until an account exists.
    public func owner() throws -> Account? { try accounts().first(where: \.isOwner) }

    /// Adds an account. The first account is the owner whatever `owner` says (someone has to be), and an admin.
    public func add(name: String, password: String, admin: Bool = false, owner: Bool = false, jukebox: Bool = false) throws -> Account {
        let name = name.trimmingCharacters(in: .whitespaces)
        try Self.check(name: name)
        try Self.check(password: password)
        guard try store.accountRecord(named: name) == nil else { throw AccountError.nameTaken(name) }
        let first = try store.accountRecords().isEmpty
        let account = try store.insertAccount(name: name, sealedPassword: try box.seal(password), admin: admin || first,
                                              owner: owner || first, jukebox: jukebox || first)
        logger.info("accounts: added '\(name)'\(account.isAdmin ? " (admin)" : "")\(account.isOwner ? " (owner)" : "")")
        return account
    }

    public func remove(name: String) throws {
        guard let record = try store.accountRecord(named: name) else { throw AccountError.noSuchAccount(name) }
        let others = try store.accountRecords().count - 1
        if record.account.isOwner && others > 0 { throw AccountError.ownerCannotBeRemoved(name) }
        _ = try store.deleteAccount(id: record.account.id)
        logger.info("accounts: removed '\(record.account.name)'")
    }

    public func setPassword(name: String, password: String) throws {
        guard let record = try store.accountRecord(named: name) else { throw AccountError.noSuchAccount(name) }
        try Self.check(password: password)
        try store.setSealedPassword(accountID: record.account.id, try box.seal(password))
        logger.info("accounts: new password for '\(record.account.name)'")
    }

    /// A new API key for `name`, revoking the one before; it is shown once (only its SHA-256 is kept).
    public func newAPIKey(name: String) throws -> String {
        guard let record = try store.accountRecord(named: name) else { throw AccountError.noSuchAccount(name) }
        let key = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        try store.setAPIKeyHash(accountID: record.account.id, Self.hash(key))
        logger.info("accounts: new API key for '\(record.account.name)'")
        return key
    }

    /// The account these credentials sign in as. Wrong ones are counted per name (or key) and address; from the
    /// fourth on, attempts are refused unchecked for a wait that doubles each time (0.5 s … 60 s), so guessing gains
    /// nothing by speed, while the right password works again once the wait is over.
    public func authenticate(_ credentials: Credentials, from address: String) throws -> Account {
        let who: String
        switch credentials {
        case let .password(user, _), let .token(user, _, _): who = user.lowercased()
        case .apiKey: who = "(api key)"
        }
        let key = "\(who) \(address)"
        if let wait = refusal(key) {
            throw AccountError.slowDown(seconds: wait)
        }
        do {
            let account = try check(credentials)
            _ = failures.withLock { $0.removeValue(forKey: key) }
            return account
        } catch let error as AccountError {
            let count = failures.withLock { table in
                var entry = table[key] ?? Failures(count: 0, last: .now)
                entry.count += 1
                entry.last = .now
                entry.refusedSince = 0
                table[key] = entry
                return entry.count
            }
            // The name and the address only: never what was tried.
            logger.warning("accounts: sign-in failed for '\(who)' from \(address): \(error) (\(count) in a row)")
            throw error
        }
    }

    /// The seconds left to wait when `key` is in back-off (attempts then are refused and not checked).
    private func refusal(_ key: String) -> Double? {
        failures.withLock { table in
            guard var entry = table[key], entry.count >= Self.freeFailures else { return nil }
            let wait = min(0.5 * pow(2, Double(entry.count - Self.freeFailures)), Self.longestWait)
            let elapsed = entry.last.duration(to: .now)
            let left = wait - (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
            guard left > 0 else { return nil }
            entry.refusedSince += 1
            table[key] = entry
            if entry.refusedSince == 1 {
                logger.warning("accounts: sign-ins for \(key.split(separator: " ").first.map(String.init) ?? "?") are slowed down: \(entry.count) failures")
            }
            return left
        }
    }

    private func check(_ credentials: Credentials) throws -> Account {
        switch credentials {
        case let .apiKey(key):
            guard let record = try store.accountRecord(apiKeyHash: Self.hash(key)) else { throw AccountError.unknownAPIKey }
            return record.account
        case let .password(user, password):
            guard let record = try store.accountRecord(named: user), let stored = try box.open(record.sealedPassword),
                  Self.same(stored, password) else { throw AccountError.wrongCredentials }
            return record.account
        case let .token(user, token, salt):
            guard let record = try store.accountRecord(named: user), let stored = try box.open(record.sealedPassword) else {
                throw AccountError.wrongCredentials
            }
            let expected = Insecure.MD5.hash(data: Data((stored + salt).utf8)).map { String(format: "%02x", $0) }.joined()
            guard Self.same(expected, token.lowercased()) else { throw AccountError.wrongCredentials }
            return record.account
        }
    }

    /// Compares without stopping at the first difference (no timing hint of how much matched).
    static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    static func hash(_ key: String) -> String { SHA256.hash(data: Data(key.utf8)).map { String(format: "%02x", $0) }.joined() }

    static func check(name: String) throws {
        guard !name.isEmpty, name.count <= 64 else { throw AccountError.invalidName(name, why: "it must be 1 to 64 characters") }
        guard !name.contains(where: { $0.isNewline || $0 == "/" || $0.unicodeScalars.contains { $0.properties.generalCategory == .control } }) else {
            throw AccountError.invalidName(name, why: "no slashes, line breaks or control characters")
        }
    }

    static func check(password: String) throws {
        guard password.count >= 8 else { throw AccountError.invalidPassword(why: "it must be at least 8 characters") }
        guard password.utf8.count <= 1024 else { throw AccountError.invalidPassword(why: "it must be at most 1024 bytes") }
    }
}
