import CrateCore
import CrateDomain
import Foundation
import Synchronization

/// Who in the household is playing what on their apps (`getNowPlaying`), from the "now playing" notices apps send
/// (`scrobble` with `submission=false`). Kept in memory only: it is news, not history, and a restart forgets it.
enum NowPlayingEndpoints {
    static let all: [String: SubsonicEndpoint] = [
        "getNowPlaying": .signedIn(nowPlaying),
    ]

    /// Everyone's songs, newest notice first, each with who plays it, on which app and how long ago the app said so.
    static func nowPlaying(_ call: SubsonicCall) throws -> SubsonicReply {
        let now = Date()
        var entries: [SubsonicObject] = []
        for notice in call.services.nowPlaying.current(now: now) {
            // A song removed from the library since is left out.
            guard let track = try call.services.collection.track(id: notice.trackID) else { continue }
            var entry = try call.items.song(track)
            entry["username"] = notice.user
            entry["minutesAgo"] = max(0, Int(now.timeIntervalSince(notice.since) / 60))
            entry["playerId"] = notice.playerID
            entry["playerName"] = notice.player
            entries.append(entry)
        }
        return .payload(SubsonicObject { $0["nowPlaying"] = SubsonicObject { $0["entry"] = entries } })
    }
}

/// The latest "now playing" notice of each person's app (one per account and app name), for ten minutes.
final class NowPlayingBoard: Sendable {
    struct Notice: Sendable, Equatable {
        var user: String
        var trackID: Int64
        /// The app's name (`c`), when it gave one.
        var player: String?
        /// A number for the account and app (Subsonic's `playerId`), kept while its notices keep coming.
        var playerID: Int
        var since: Date
    }

    /// How long a notice is shown: longer than most songs, so it stays while its song plays (apps send one per song),
    /// and an app that stopped without a word drops out.
    static let lifetime: TimeInterval = 600
    /// The most notices kept: an app naming itself differently each time cannot make the list grow without end.
    static let capacity = 64

    private struct Key: Hashable {
        var user: String
        var player: String
    }

    private struct Board {
        var notices: [Key: Notice] = [:]
        var nextPlayerID = 1
    }

    private let board = Mutex(Board())

    init() {}

    /// `user`'s app `player` plays `trackID` since `time`.
    func playing(user: String, trackID: Int64, player: String?, at time: Date = Date()) {
        let key = Key(user: user.lowercased(), player: player ?? "")
        board.withLock { board in
            board.notices = board.notices.filter { time.timeIntervalSince($0.value.since) < Self.lifetime }
            let id: Int
            if let known = board.notices[key]?.playerID {
                id = known
            } else {
                id = board.nextPlayerID
                board.nextPlayerID += 1
            }
            board.notices[key] = Notice(user: user, trackID: trackID, player: player, playerID: id, since: time)
            while board.notices.count > Self.capacity, let oldest = board.notices.min(by: { $0.value.since < $1.value.since }) {
                board.notices[oldest.key] = nil
            }
        }
    }

    /// The notices younger than ten minutes, newest first.
    func current(now: Date = Date()) -> [Notice] {
        board.withLock { board in
            board.notices = board.notices.filter { now.timeIntervalSince($0.value.since) < Self.lifetime }
            return board.notices.values.sorted { $0.since > $1.since }
        }
    }
}
