/// The Crate Dial under /api/v1 (Docs/HTTP_API.md): one declaration for the HTTP front end and its clients.
extension API {
    /// `PUT dial`: a position's name (my, mostly-mine, mixed, mostly-mystery, mystery) or 0–4.
    public struct Dial: Codable, Sendable, Hashable {
        public var dial: String

        public init(dial: String) {
            self.dial = dial
        }
    }

    /// `GET`/`PUT dial`: the position, its title and index, and every position's name.
    public struct DialState: Codable, Sendable, Hashable {
        public var dial: String
        public var title: String
        public var index: Int
        public var positions: [String]

        public init(dial: String, title: String, index: Int, positions: [String]) {
            self.dial = dial
            self.title = title
            self.index = index
            self.positions = positions
        }
    }
}
