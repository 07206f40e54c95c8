import CrateAudio
import CrateDomain
import Foundation
import Logging
import CrateStorage

extension PlayerService {
    func handle(_ event: EngineEvent) {
        do {
            switch event {
            case .decoding(let item):
                // The decoder went on to `item` ahead of the output: say what follows it.
                if let entry = handed[item.token] { try handNext(after: entry, token: item.token) }
            case let .started(item, info):
                guard let entry = handed[item.token] else { return }
                // A live stream never finishes: it counts as played (history, recents) when its sound starts. A catalog
                // song's preview (a short file over https) counts when it finished, as a file does.
                if !item.url.isFileURL && countedStreamToken != item.token, try previewAlbum(of: entry.track) == nil {
                    countedStreamToken = item.token
                    try store.recordPlay(trackID: entry.track.id, fromPlaylist: entry.playlistID)
                }
                if let previous = currentToken, previous != item.token, handed[previous] == nil { applied.removeValue(forKey: previous) }
                current = entry
                currentToken = item.token
                format = info
                if state != .paused { state = .playing }
                try publishTrack(.playing, entry.track)
                save()
                soundWaiters.removeValue(forKey: item.token)?.resume(returning: .started)
            case .finished(let item):
                guard let entry = handed.removeValue(forKey: item.token) else { return }
                if item.token != currentToken { applied.removeValue(forKey: item.token) }
                try store.recordPlay(trackID: entry.track.id, fromPlaylist: entry.playlistID)
                try store.saveTrackPosition(trackID: entry.track.id, seconds: 0)
                try publishTrack(.finished, entry.track)
            case let .failed(item, reason):
                soundWaiters.removeValue(forKey: item.token)?.resume(returning: .failed(reason))
                guard let entry = handed.removeValue(forKey: item.token) else { return }
                if item.token != currentToken { applied.removeValue(forKey: item.token) }
                try flagSkip(entry.track, reason: reason, missing: Self.classify(item.url))
                if item.token == currentToken, let after = try following(entry, manual: true), state == .playing,
                   engine.position() == nil {
                    // The very item a play command started is gone: go on with the next one.
                    try start(after, at: 0)
                }
            case .idle:
                for waiter in soundWaiters.values { waiter.resume(returning: .failed("the stream ended before it made a sound")) }
                soundWaiters.removeAll()
                handed.removeAll()
                applied.removeAll()
                currentToken = nil
                format = nil
                if let border {
                    // Stop after the album or the track: wait at the next entry.
                    self.border = nil
                    current = border.entry
                    heldElapsed = 0
                    if border.state == .stopped, modes.stopAfterTrack == .once {
                        modes.stopAfterTrack = .off
                        publish(.options(.modes(modes)))
                    }
                    setState(border.state)
                } else if state == .playing {
                    current = nil
                    heldElapsed = 0
                    if modes.stopAfterTrack == .once {
                        modes.stopAfterTrack = .off
                        publish(.options(.modes(modes)))
                    }
                    setState(.stopped)
                }
            case let .streamMetadata(item, metadata):
                guard let entry = handed[item.token] ?? (item.token == currentToken ? current : nil) else { return }
                streamTitles[entry.track.id] = metadata.title
                publish(.player(.streamTitle(metadata.title)))
            case let .outputFailed(reason, item, frame):
                outputFailed(reason, item: item, frame: frame)
            }
        } catch {
            logger.error("player: \(ErrorText.describe(error))")
        }
    }

    /// Records why `track` was skipped, flags it missing when the file is the problem, and says so.
    func flagSkip(_ track: Track, reason: String, missing: MissingReason?) throws {
        lastSkip = SkipNotice(trackID: track.id, title: track.title, reason: reason, missing: missing)
        if let missing { try store.setMissing(trackID: track.id, reason: missing, detail: reason) }
        logger.warning("skipped \(track.path ?? track.ref.description): \(reason)")
        publish(.player(.skipped(title: track.title, reason: missing?.rawValue ?? reason, preview: false)))
        if missing != nil { publish(.library(.missing(title: track.title))) }
    }

    /// Why a file cannot be played, if it is the file's fault: gone, or not readable. A stream that fails (a
    /// station off the air, a 404) is skipped with its reason but not marked missing: it may be back tomorrow.
    static func classify(_ url: URL) -> MissingReason? {
        guard url.isFileURL else { return nil }
        if !RawFileName.exists(url.path) { return .notFound }
        if !RawFileName.isReadable(url.path) { return .permission }
        return nil
    }
}
