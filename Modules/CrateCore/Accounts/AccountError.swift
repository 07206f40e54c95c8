/// Why an account could not be made, changed or signed in with; each message says what to do.
public enum AccountError: Error, CustomStringConvertible, Equatable {
    /// Unknown name or wrong password (one answer for both: it does not tell which names exist).
    case wrongCredentials
    case unknownAPIKey
    /// Too many failed sign-ins from this address for this name: refused unchecked until the back-off ends.
    case slowDown(seconds: Double)
    case noSuchAccount(String)
    case nameTaken(String)
    case invalidName(String, why: String)
    case invalidPassword(why: String)
    /// The owner's account holds Crate's own favorites and plays: another owner must be named first.
    case ownerCannotBeRemoved(String)
    /// The key that seals passwords cannot be read or made.
    case secretKey(path: String, why: String)
    /// No playlist this account can see has this id.
    case noSuchPlaylist(String)
    /// The playlist is someone else's: it can be seen (it is public) but only its owner changes it.
    case notYours(String)

    public var description: String {
        switch self {
        case .wrongCredentials: "wrong user name or password"
        case .unknownAPIKey: "no account has this API key (make one with crate users apikey NAME)"
        case let .slowDown(seconds): "too many failed sign-ins: try again in \(Int(seconds.rounded(.up))) s"
        case let .noSuchAccount(name): "no account named '\(name)' (crate users list shows them)"
        case let .nameTaken(name): "an account named '\(name)' exists already"
        case let .invalidName(name, why): "'\(name)' cannot be an account name: \(why)"
        case let .invalidPassword(why): "the password cannot be used: \(why)"
        case let .ownerCannotBeRemoved(name):
            "'\(name)' owns Crate's own favorites and plays: add another account with --owner first, then remove this one"
        case let .secretKey(path, why): "cannot use the password key \(path): \(why)"
        case let .noSuchPlaylist(id): "no playlist \(id) for this account"
        case let .notYours(name): "the playlist '\(name)' is someone else's: only its owner changes it"
        }
    }
}
