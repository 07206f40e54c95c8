/// The ids apps see: Crate's own numbers (stable across rescans) behind a prefix naming the kind, so one id never
/// means two things (`getCoverArt`, `star` and `setRating` take any kind) and a stale id is refused, not misread.
enum SubsonicID: Sendable, Hashable {
    case artist(Int64)
    case album(Int64)
    case track(Int64)
    case playlist(Int64)
    /// A playlist of an account other than the owner (Crate's own playlists are the owner's: `pl-`).
    case accountPlaylist(Int64)
    case station(Int64)

    /// The one music folder: Crate has one library.
    static let musicFolder = 1

    init?(_ text: String) {
        guard let dash = text.firstIndex(of: "-"), let number = Int64(text[text.index(after: dash)...]), number >= 0 else { return nil }
        switch text[..<dash] {
        case "ar": self = .artist(number)
        case "al": self = .album(number)
        case "tr": self = .track(number)
        case "pl": self = .playlist(number)
        case "pu": self = .accountPlaylist(number)
        case "st": self = .station(number)
        default: return nil
        }
    }

    var text: String {
        switch self {
        case .artist(let id): "ar-\(id)"
        case .album(let id): "al-\(id)"
        case .track(let id): "tr-\(id)"
        case .playlist(let id): "pl-\(id)"
        case .accountPlaylist(let id): "pu-\(id)"
        case .station(let id): "st-\(id)"
        }
    }

    static func artist(_ id: Int64) -> String { SubsonicID.artist(id).text }
    static func album(_ id: Int64) -> String { SubsonicID.album(id).text }
    static func track(_ id: Int64) -> String { SubsonicID.track(id).text }
    static func playlist(_ id: Int64) -> String { SubsonicID.playlist(id).text }
    static func station(_ id: Int64) -> String { SubsonicID.station(id).text }

    /// Parses `text`, which must be of one of `kinds`; else the error says what the parameter takes.
    static func parse(_ text: String, parameter: String, as kinds: Kind...) throws(SubsonicError) -> SubsonicID {
        guard let id = SubsonicID(text), kinds.contains(id.kind) else {
            let examples = kinds.map { SubsonicID.example($0) }.joined(separator: " or ")
            throw SubsonicError(.notFound, "'\(text)' is not an id \(parameter) takes (\(examples))")
        }
        return id
    }

    enum Kind: Sendable { case artist, album, track, playlist, accountPlaylist, station }

    var kind: Kind {
        switch self {
        case .artist: .artist
        case .album: .album
        case .track: .track
        case .playlist: .playlist
        case .accountPlaylist: .accountPlaylist
        case .station: .station
        }
    }

    var number: Int64 {
        switch self {
        case .artist(let id), .album(let id), .track(let id), .playlist(let id), .accountPlaylist(let id), .station(let id): id
        }
    }

    private static func example(_ kind: Kind) -> String {
        switch kind {
        case .artist: "ar-12"
        case .album: "al-12"
        case .track: "tr-12"
        case .playlist: "pl-12"
        case .accountPlaylist: "pu-12"
        case .station: "st-12"
        }
    }
}
