public import CrateDomain
public import CrateFeeds
import Foundation

/// A change clients should know about. Only Core builds and publishes these (the services that write then publish);
/// front ends derive what they need from them by a `switch`: MPD's idle subsystems, MPRIS's property changes, the
/// event stream's JSON (`EventMessage`).
public enum CrateEvent: Sendable, Hashable {
    case player(PlayerChange)
    case queue(QueueChange)
    case mixer(volume: Int)
    case options(OptionsChange)
    case library(LibraryChange)
    case feeds(FeedChange)
    /// An output was switched on or off, failed, or came back (MPD's `output` subsystem).
    case output(OutputState)
}

/// What the player did: state, track, position, skips, stream titles, output trouble.
public enum PlayerChange: Sendable, Hashable {
    case state(PlaybackState)
    /// A track began to sound or played to its end; `preview` for a catalog song's preview.
    case track(TrackMoment, title: String, preview: Bool)
    case seek(seconds: Double)
    case skipped(title: String, reason: String, preview: Bool)
    case streamTitle(String?)
    case outputError(OutputErrorNotice)
    case outputBack(output: String)

    public enum TrackMoment: String, Sendable, Hashable { case playing, finished }
}

/// How the queue changed (positions are 1-based, as the API counts them).
public enum QueueChange: Sendable, Hashable {
    case replaced
    case added(count: Int)
    case removed(index: Int)
    case removedRange(ClosedRange<Int>)
    case moved(from: Int, to: Int)
    case movedRange(ClosedRange<Int>, to: Int)
    case shuffled(ClosedRange<Int>)
    case cleared
    case history(index: Int)
}

/// The playback modes changed.
public enum OptionsChange: Sendable, Hashable {
    case modes(PlayerModes)
    /// Playing an album turns shuffle off: albums are sacred.
    case shuffleOffForAlbum
}

/// What changed in the library.
public enum LibraryChange: Sendable, Hashable {
    /// A library job (import, rescan, retry, loudness) started, moved on, finished or failed.
    case job(kind: String, phase: JobPhase)
    case artworkRepair(filled: Int, checked: Int, remaining: Int)
    /// A track's file is gone or unreadable (flagged missing).
    case missing(title: String)
    /// Another process wrote to the library database.
    case externalChange
    case recentAlbum(id: Int64)
    case playlist(id: Int64, PlaylistChange)
    /// A favorite, dislike or neither on a track, album or artist; `id` is a library number or, for catalog albums,
    /// `applemusic:ID`.
    case opinion(kind: FavoriteKind, id: String, Opinion?)
    case station(id: Int64, StationChange)
    /// Tracks edited (tag overrides), pointed at another file, or removed from the library.
    case tracks([Int64], TrackChange)

    public enum TrackChange: String, Sendable, Hashable { case edited, relinked, deleted }

    public enum JobPhase: Sendable, Hashable {
        case started
        case progress(done: Int, total: Int)
        case done(summary: String)
        case failed(reason: String)
    }

    public enum PlaylistChange: Sendable, Hashable {
        case created, imported, renamed, deleted, played, cleared
        case added(count: Int)
        case replaced(count: Int)
        case removed
        case moved(from: Int, to: Int)
    }

    public enum StationChange: String, Sendable, Hashable { case added, removed }
}

/// The Crate Wall's inputs changed.
public enum FeedChange: Sendable, Hashable {
    case dial(CrateDial)
    /// A wall was composed on this dial.
    case wall(CrateDial)
}

extension CrateEvent {
    /// The subsystem, as MPD's idle names them where they overlap: `player`, `queue`, `mixer`, `options`, `library`,
    /// `feeds`, `output`.
    public var subsystem: String {
        switch self {
        case .player: "player"
        case .queue: "queue"
        case .mixer: "mixer"
        case .options: "options"
        case .library: "library"
        case .feeds: "feeds"
        case .output: "output"
        }
    }

    /// The short human-readable line the event stream and `crate watch` show (Docs/HTTP_API.md lists them).
    public var detail: String {
        switch self {
        case .player(let change): change.detail
        case .queue(let change): change.detail
        case .mixer(let volume): "volume \(volume)"
        case .options(.modes(let modes)):
            "repeat \(modes.repeatMode.rawValue), shuffle \(modes.shuffle), stop-after-album \(modes.stopAfterAlbum)"
        case .options(.shuffleOffForAlbum): "shuffle off for album play"
        case .library(let change): change.detail
        case .feeds(.dial(let dial)): "dial \(dial.rawValue)"
        case .feeds(.wall(let dial)): "wall \(dial.rawValue)"
        case .output(let state): state.summary
        }
    }

    /// Which change it is, for programs: the case's name (`state`, `track`, `seek`, `playlist`, `opinion`, `job`,
    /// `wall`, `dial`, …), so a client reacts to the kind of change without reading the detail's text.
    public var change: String {
        switch self {
        case .player(let change):
            switch change {
            case .state: "state"
            case .track: "track"
            case .seek: "seek"
            case .skipped: "skipped"
            case .streamTitle: "streamTitle"
            case .outputError: "outputError"
            case .outputBack: "outputBack"
            }
        case .queue(let change):
            switch change {
            case .replaced: "replaced"
            case .added: "added"
            case .removed, .removedRange: "removed"
            case .moved, .movedRange: "moved"
            case .shuffled: "shuffled"
            case .cleared: "cleared"
            case .history: "history"
            }
        case .mixer: "volume"
        case .options(.modes): "modes"
        case .options(.shuffleOffForAlbum): "shuffleOffForAlbum"
        case .library(let change):
            switch change {
            case .job: "job"
            case .artworkRepair: "artworkRepair"
            case .missing: "missing"
            case .externalChange: "externalChange"
            case .recentAlbum: "recentAlbum"
            case .playlist: "playlist"
            case .opinion: "opinion"
            case .station: "station"
            case .tracks: "tracks"
            }
        case .feeds(.dial): "dial"
        case .feeds(.wall): "wall"
        case .output(let state): state.error != nil && state.enabled ? "outputFailed" : "output"
        }
    }

    /// On output trouble: the trouble as status shows it.
    public var outputError: OutputErrorNotice? {
        if case .player(.outputError(let notice)) = self { return notice }
        return nil
    }

    /// True on events about a catalog song's preview.
    public var preview: Bool {
        switch self {
        case .player(.track(_, _, let preview)), .player(.skipped(_, _, let preview)): preview
        default: false
        }
    }
}

extension PlayerChange {
    var detail: String {
        switch self {
        case .state(let state): state.rawValue
        case let .track(moment, title, preview): "\(moment.rawValue) \(title)\(preview ? " (preview)" : "")"
        case .seek(let seconds): "seek \(String(format: "%.1f", seconds))"
        case let .skipped(title, reason, _): "skipped \(title): \(reason)"
        case .streamTitle(let title): "stream title \(title ?? "")"
        case .outputError(let notice): "output error: \(notice.output): \(notice.reason)"
        case .outputBack(let output): "output back: \(output)"
        }
    }
}

extension QueueChange {
    var detail: String {
        switch self {
        case .replaced: "replaced"
        case .added(let count): "added \(count)"
        case .removed(let index): "removed \(index)"
        case .removedRange(let range): "removed \(range.lowerBound)–\(range.upperBound)"
        case let .moved(from, to): "moved \(from) to \(to)"
        case let .movedRange(range, to): "moved \(range.lowerBound)–\(range.upperBound) to \(to)"
        case .shuffled(let range): "shuffled \(range.lowerBound)–\(range.upperBound)"
        case .cleared: "cleared"
        case .history(let index): "history \(index) in place of the current track"
        }
    }
}

extension LibraryChange {
    var detail: String {
        switch self {
        case let .job(kind, .started): "\(kind) started"
        case let .job(kind, .progress(done, total)): "\(kind) \(done)/\(total)"
        case let .job(kind, .done(summary)): "\(kind) done: \(summary)"
        case let .job(kind, .failed(reason)): "\(kind) failed: \(reason)"
        case let .artworkRepair(filled, checked, remaining): "artwork repair: \(filled) of \(checked) filled, \(remaining) left"
        case .missing(let title): "missing \(title)"
        case .externalChange: "changed by another process"
        case .recentAlbum(let id): "recent album \(id)"
        case let .playlist(id, change): "playlist \(id) \(change.detail)"
        case let .opinion(kind, id, opinion): "\(kind.rawValue) \(id): \(opinion?.rawValue ?? "no opinion")"
        case let .station(id, change): "station \(id) \(change.rawValue)"
        case let .tracks(ids, change): "\(ids.count == 1 ? "track" : "tracks") \(ids.map(String.init).joined(separator: ",")) \(change.rawValue)"
        }
    }
}

extension LibraryChange.PlaylistChange {
    var detail: String {
        switch self {
        case .created: "created"
        case .imported: "imported"
        case .renamed: "renamed"
        case .deleted: "deleted"
        case .played: "played"
        case .cleared: "cleared"
        case .added(let count): "added \(count)"
        case .replaced(let count): "replaced with \(count)"
        case .removed: "removed"
        case let .moved(from, to): "moved \(from) to \(to)"
        }
    }
}

/// An event as the event stream sends it: `{"subsystem", "change", "detail"}`, with `outputError` on output trouble
/// and `preview: true` on a preview's events (the shape the web page and `crate watch` read; Docs/HTTP_API.md).
/// `change` names the kind of change for programs; `detail` is for people.
public struct EventMessage: Sendable, Codable, Hashable {
    public var subsystem: String
    /// Absent in streams from a crated before the typed events.
    public var change: String?
    public var detail: String?
    public var outputError: OutputErrorNotice?
    public var preview: Bool?
    /// On `output` events: the output as `GET /api/v1/outputs` shows it now.
    public var output: OutputState?

    public init(_ event: CrateEvent) {
        subsystem = event.subsystem
        change = event.change
        detail = event.detail
        outputError = event.outputError
        preview = event.preview ? true : nil
        if case .output(let state) = event { output = state }
    }
}
