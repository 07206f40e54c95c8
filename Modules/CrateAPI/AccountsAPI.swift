import Foundation

extension API {
    /// `POST users`: a new account (the first one is the owner and an admin whatever is asked).
    public struct UserAdd: Codable, Sendable, Hashable {
        public var name: String
        public var password: String
        public var admin: Bool
        public var owner: Bool
        public var jukebox: Bool

        public init(name: String, password: String, admin: Bool = false, owner: Bool = false, jukebox: Bool = false) {
            self.name = name
            self.password = password
            self.admin = admin
            self.owner = owner
            self.jukebox = jukebox
        }
    }

    /// `PUT users/{name}/password`.
    public struct UserPassword: Codable, Sendable, Hashable {
        public var password: String
        public init(password: String) { self.password = password }
    }

    /// `POST users/{name}/apikey`: the new key, shown this once.
    public struct APIKey: Codable, Sendable, Hashable {
        public var apiKey: String
        public init(apiKey: String) { self.apiKey = apiKey }
    }
}
