import Foundation

/// A genre of the catalog's top-charts list. `parentID` builds the hierarchy ("34", Music, is the root).
public struct CatalogGenre: Sendable, Hashable, Codable {
    public var id: String
    public var name: String
    public var parentID: String?

    public init(id: String, name: String, parentID: String? = nil) {
        self.id = id
        self.name = name
        self.parentID = parentID
    }
}

/// One page of a paged listing. `next` is Apple's root-relative link to the rest, nil at the end.
public struct CatalogPage<Item: Sendable & Hashable & Codable>: Sendable, Hashable, Codable {
    public var items: [Item]
    public var next: String?

    public init(items: [Item], next: String?) {
        self.items = items
        self.next = next
    }

    /// The `offset` of the next page, to pass back as `offset:`; nil at the end.
    public var nextOffset: Int? {
        next.flatMap { CatalogURL.value(of: "offset", in: $0) }.flatMap { Int($0) }
    }
}

/// A personal album rating: Apple accepts only these two values.
public enum CatalogRating: Int, Sendable, Codable {
    case love = 1
    case dislike = -1
}

/// What `crate catalog auth` prints: each token's state and, when something is wrong, what exactly.
public struct CatalogAuthReport: Sendable, Hashable, Codable {
    public enum State: String, Sendable, Hashable, Codable {
        case ok, problem, absent
    }

    public var developerToken: State
    /// Why the developer token does not work (bad key file, expired, refused with 401, …).
    public var developerTokenProblem: String?
    /// When the token in use runs out (a signed one is renewed before then).
    public var developerTokenExpires: Date?
    public var userToken: State
    public var userTokenProblem: String?
    /// The storefront catalog calls use (the account's when the user token works).
    public var storefront: String?
    /// The report as lines for a person, one per finding.
    public var messages: [String]

    public init(developerToken: State, developerTokenProblem: String? = nil, developerTokenExpires: Date? = nil,
                userToken: State, userTokenProblem: String? = nil, storefront: String? = nil, messages: [String] = []) {
        self.developerToken = developerToken
        self.developerTokenProblem = developerTokenProblem
        self.developerTokenExpires = developerTokenExpires
        self.userToken = userToken
        self.userTokenProblem = userTokenProblem
        self.storefront = storefront
        self.messages = messages
    }

    /// Catalog calls work, and personal ones too unless there is simply no user token.
    public var isOK: Bool { developerToken == .ok && userToken != .problem }
}
