public import CrateDomain

/// The player and queue requests of /api/v1 (Docs/HTTP_API.md), as the HTTP front end decodes them and clients send
/// them: one declaration for both.
extension API {
    /// `POST player/play`: the 1-based queue position to play, or the current one.
    public struct Play: Codable, Sendable, Hashable {
        public var index: Int?

        public init(index: Int? = nil) {
            self.index = index
        }
    }

    /// `POST player/seek`: to a position, or by a delta, in seconds.
    public struct Seek: Codable, Sendable, Hashable {
        public var position: Double?
        public var delta: Double?

        public init(position: Double? = nil, delta: Double? = nil) {
            self.position = position
            self.delta = delta
        }
    }

    /// `POST player/volume`: 0–100, or a delta.
    public struct Volume: Codable, Sendable, Hashable {
        public var value: Int?
        public var delta: Int?

        public init(value: Int? = nil, delta: Int? = nil) {
            self.value = value
            self.delta = delta
        }
    }

    /// `PUT player/options`: the modes to change.
    public struct Modes: Codable, Sendable, Hashable {
        public var `repeat`: RepeatMode?
        public var shuffle: Bool?
        public var stopAfterAlbum: Bool?
        public var stopAfterTrack: StopAfterTrack?
        /// The loudness mode from now on, kept across restarts with the other modes (over `player.replaygain`).
        public var loudness: LoudnessMode?

        public init(`repeat`: RepeatMode? = nil, shuffle: Bool? = nil, stopAfterAlbum: Bool? = nil,
                    stopAfterTrack: StopAfterTrack? = nil, loudness: LoudnessMode? = nil) {
            self.`repeat` = `repeat`
            self.shuffle = shuffle
            self.stopAfterAlbum = stopAfterAlbum
            self.stopAfterTrack = stopAfterTrack
            self.loudness = loudness
        }
    }

    /// `POST queue`: tracks (or an album's) after the current entry, at the end, or at a 1-based index.
    public struct QueueAdd: Codable, Sendable, Hashable {
        public var trackIDs: [Int64]?
        public var albumID: Int64?
        public var mode: QueueAddMode?
        public var index: Int?

        public init(trackIDs: [Int64]? = nil, albumID: Int64? = nil, mode: QueueAddMode? = nil, index: Int? = nil) {
            self.trackIDs = trackIDs
            self.albumID = albumID
            self.mode = mode
            self.index = index
        }
    }

    /// `POST queue/play-album`: an album from its 1-based track `from`.
    public struct PlayAlbum: Codable, Sendable, Hashable {
        public var albumID: Int64
        public var from: Int?

        public init(albumID: Int64, from: Int? = nil) {
            self.albumID = albumID
            self.from = from
        }
    }

    /// `POST queue/play-list`: tracks as the new queue, from the 1-based `index`.
    public struct PlayList: Codable, Sendable, Hashable {
        public var trackIDs: [Int64]
        public var index: Int?

        public init(trackIDs: [Int64], index: Int? = nil) {
            self.trackIDs = trackIDs
            self.index = index
        }
    }

    /// `POST playlists/{id}/play`, `favorites/play`, `catalog/albums/{id}/play`: from the 1-based track `from`.
    public struct PlayFrom: Codable, Sendable, Hashable {
        public var from: Int?

        public init(from: Int? = nil) {
            self.from = from
        }
    }

    /// `POST queue/play-url`: a stream's or radio playlist's URL.
    public struct PlayURL: Codable, Sendable, Hashable {
        public var url: String
        /// Seconds to wait for the stream's first sound (at most 60); the answer is then the status, or an error with
        /// the reason it cannot play. Absent or 0: answered at once, while the stream is still being opened.
        public var wait: Double?

        public init(url: String, wait: Double? = nil) {
            self.url = url
            self.wait = wait
        }
    }

    /// `POST stations/{id}/play`, optional: as `PlayURL.wait`.
    public struct PlayStation: Codable, Sendable, Hashable {
        public var wait: Double?

        public init(wait: Double? = nil) {
            self.wait = wait
        }
    }

    /// `POST queue/move`, `POST playlists/{id}/move`: 1-based positions.
    public struct Move: Codable, Sendable, Hashable {
        public var from: Int
        public var to: Int

        public init(from: Int, to: Int) {
            self.from = from
            self.to = to
        }
    }
}

extension API {
    /// `POST outputs/{name}`: switch an output on or off while playing.
    public struct OutputSwitch: Codable, Sendable, Hashable {
        public var enabled: Bool

        public init(enabled: Bool) {
            self.enabled = enabled
        }
    }
}
