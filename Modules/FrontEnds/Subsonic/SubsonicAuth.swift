import CrateCore
import CrateDomain
import Foundation

/// How a Subsonic request says who it is. Every request carries it (apps keep no session): `u` with `p` (the
/// password, or `enc:` and its UTF-8 bytes in hex), `u` with `t` and `s` (md5(password + salt) in hex and the salt),
/// or OpenSubsonic's `apiKey` alone. Core's account service checks them; this only reads the parameters.
enum SubsonicAuth {
    /// The credentials in `parameters`, or the error the spec names for what is wrong with them.
    static func credentials(_ parameters: SubsonicParameters) throws(SubsonicError) -> Credentials {
        let user = parameters.string("u"), password = parameters.string("p")
        let token = parameters.string("t"), salt = parameters.string("s")
        if let key = parameters.string("apiKey") {
            // The extension's rule: an API key names its account, so a user name (or a password) beside it conflicts.
            guard user == nil, password == nil, token == nil else {
                throw SubsonicError(.conflictingMechanisms, "give either apiKey or u with p (or t and s), not both")
            }
            guard !key.isEmpty else { throw .missing("apiKey") }
            return .apiKey(key)
        }
        guard let user, !user.isEmpty else {
            if password == nil, token == nil {
                throw SubsonicError(.mechanismNotSupported,
                                    "sign in with u and p, u with t and s, or apiKey (none was given)")
            }
            throw .missing("u")
        }
        switch (password, token) {
        case (let password?, nil):
            return .password(user: user, password: try decodePassword(password))
        case (nil, let token?):
            guard let salt, !salt.isEmpty else { throw .missing("s") }
            return .token(user: user, token: token.lowercased(), salt: salt)
        case (nil, nil):
            throw SubsonicError(.missingParameter, "required parameter 'p' (or 't' and 's') is missing")
        case (_?, _?):
            throw SubsonicError(.conflictingMechanisms, "give either p or t and s, not both")
        }
    }

    /// `p` as given, or decoded from `enc:` + hex of its UTF-8 bytes. Hex that does not decode to UTF-8 cannot be
    /// anyone's password: it is answered as a wrong password.
    static func decodePassword(_ text: String) throws(SubsonicError) -> String {
        guard text.hasPrefix("enc:") else { return text }
        let hex = Array(text.utf8.dropFirst(4))
        guard hex.count.isMultiple(of: 2) else { throw wrongPassword }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(hex.count / 2)
        var index = 0
        while index < hex.count {
            guard let high = nibble(hex[index]), let low = nibble(hex[index + 1]) else { throw wrongPassword }
            bytes.append(high << 4 | low)
            index += 2
        }
        guard let password = String(validating: bytes, as: UTF8.self) else { throw wrongPassword }
        return password
    }

    private static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    static let wrongPassword = SubsonicError(.wrongCredentials, "wrong username or password")

    /// The Subsonic error for what the account service refused.
    static func error(for error: any Error) -> SubsonicError {
        switch error {
        case let error as SubsonicError: error
        case let error as AccountError:
            switch error {
            case .wrongCredentials, .noSuchAccount: wrongPassword
            case .unknownAPIKey: SubsonicError(.invalidAPIKey, "unknown API key (make one with crate users apikey NAME)")
            // Still "wrong username or password" to the app, which knows that code, with the wait in the message.
            case .slowDown: SubsonicError(.wrongCredentials, error.description)
            default: SubsonicError(.generic, error.description)
            }
        default: SubsonicError(.generic, "cannot sign in: \(ErrorText.describe(error))")
        }
    }
}
