import CrateCore
import CrateDomain
import Foundation
import Hummingbird
import Logging
import NIOCore

/// The media itself: a song's file (stream and download send the original bytes, byte ranges honoured, so apps
/// seek and resume) and cover art (the library's pictures, scaled when asked).
enum MediaEndpoints {
    static let all: [String: SubsonicEndpoint] = [
        // The original file, or a transcode when the app asks (`format`, `maxBitRate`, `timeOffset`) or a
        // `subsonic.transcode` rule says so.
        "stream": .signedIn(stream),
        "download": .signedIn { try await file($0, download: true) },
        "getCoverArt": .signedIn(coverArt),
    ]

    // MARK: Songs

    static func stream(_ call: SubsonicCall) async throws -> SubsonicReply {
        let track = try BrowsingEndpoints.libraryTrack(try call.parameters.required("id"), call)
        let parameters = call.parameters
        let size = track.path.flatMap(SubsonicItems.fileSize)
        let fileBitRate = size.flatMap { track.duration > 0 ? Int(Double($0) * 8 / track.duration / 1000) : nil }
        let offset = Double(parameters.string("timeOffset") ?? "") ?? 0
        let transcoder = call.services.runtime.transcoder
        let choice = StreamChoice.choose(
            format: parameters.string("format"), maxBitRate: try parameters.int("maxBitRate", default: 0), timeOffset: offset,
            rule: call.services.settings.rule(client: parameters.string("c"), user: call.account.name),
            suffix: SubsonicItems.suffix(of: track), fileBitRate: fileBitRate, encodable: Set(transcoder.formats.map(\.name)))
        guard case let .transcode(format, bitRate, start) = choice else { return try await file(call, download: false) }
        let transcode: Transcode
        do {
            transcode = try transcoder.start(trackID: track.id, format: format, bitRate: bitRate, offset: start)
        } catch {
            throw SubsonicError(.notFound, "song tr-\(track.id) cannot be transcoded to \(format): \(ErrorText.describe(error))")
        }
        call.services.logger.debug("subsonic: \(call.account.name) streams tr-\(track.id) as \(format) \(transcode.bitRate) kbit/s from \(start) s")
        var headers: HTTPFields = [.contentType: transcode.format.contentType, .acceptRanges: "none"]
        let chunks = transcode.bytes.map { ByteBuffer(bytes: $0) }
        guard parameters.bool("estimateContentLength", default: false) else {
            return .media(Response(status: .ok, headers: headers, body: ResponseBody(asyncSequence: chunks)))
        }
        // Asked for a length up front: the estimate is sent, and the body made exactly that long (cut, or padded
        // with zero bytes past the container's end, which decoders skip), so the connection stays sound.
        let length = transcode.estimatedLength + 16_384
        headers[.contentLength] = String(length)
        return .media(Response(status: .ok, headers: headers, body: ResponseBody(contentLength: length) { writer in
            var sent = 0
            for try await chunk in chunks where sent < length {
                let part = chunk.getSlice(at: chunk.readerIndex, length: min(chunk.readableBytes, length - sent)) ?? chunk
                sent += part.readableBytes
                try await writer.write(part)
            }
            while sent < length {
                let zeros = ByteBuffer(repeating: 0, count: min(65_536, length - sent))
                sent += zeros.readableBytes
                try await writer.write(zeros)
            }
            try await writer.finish(nil)
        }))
    }

    static func file(_ call: SubsonicCall, download: Bool) async throws -> SubsonicReply {
        let track = try BrowsingEndpoints.libraryTrack(try call.parameters.required("id"), call)
        guard let path = track.path, let size = SubsonicItems.fileSize(path) else {
            throw SubsonicError(.notFound, "the file of song tr-\(track.id) is missing (crate library missing lists such files)")
        }
        let suffix = SubsonicItems.suffix(of: track)
        var headers: HTTPFields = [.contentType: SubsonicItems.contentType(suffix: suffix), .acceptRanges: "bytes"]
        if download {
            let name = SubsonicItems.displayPath(track, suffix: suffix).split(separator: "/").last.map(String.init) ?? "song.\(suffix)"
            headers[.contentDisposition] = "attachment; filename*=UTF-8''" + (name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "song")
        }
        let range: ClosedRange<Int>?
        switch ByteRange.parse(call.request.headers[.range], size: size) {
        case .whole: range = nil
        case .part(let part): range = part
        case .unsatisfiable:
            headers[.contentRange] = "bytes */\(size)"
            return .media(Response(status: .rangeNotSatisfiable, headers: headers))
        }
        let sent = range ?? 0...max(0, size - 1)
        headers[.contentLength] = String(size == 0 ? 0 : sent.count)
        if let range { headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(size)" }
        guard size > 0 else { return .media(Response(status: .ok, headers: headers)) }
        let body: ResponseBody
        do {
            body = RawFileName.hasEscapes(path) ? try rawFileBody(path, range: sent)
                : try await FileIO().loadFile(path: path, range: sent, context: call.context)
        } catch {
            throw SubsonicError(.notFound, "the file of song tr-\(track.id) cannot be read")
        }
        return .media(Response(status: range == nil ? .ok : .partialContent, headers: headers, body: body))
    }

    /// `range` of a file whose name is not UTF-8 (see `RawFileName`), which FileIO cannot open by its path.
    static func rawFileBody(_ path: String, range: ClosedRange<Int>) throws -> ResponseBody {
        let fd = RawFileName.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SubsonicError(.notFound, "the file cannot be opened: \(AudioFileCheck.describe(errno))") }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        return ResponseBody { writer in
            try handle.seek(toOffset: UInt64(range.lowerBound))
            var left = range.count
            while left > 0, let chunk = try handle.read(upToCount: min(left, 1 << 16)), !chunk.isEmpty {
                try await writer.write(ByteBuffer(bytes: chunk))
                left -= chunk.count
            }
            try await writer.finish(nil)
        }
    }

    // MARK: Cover art

    /// The first cover among a playlist's songs, if the account may see the playlist.
    static func firstCover(of playlist: AccountPlaylists.Ref, _ call: SubsonicCall) throws -> String? {
        try call.services.runtime.accountPlaylists.playlist(playlist, for: call.account).tracks.lazy.compactMap(\.artworkHash).first
    }

    /// The picture an id stands for: an album's, a song's (else its album's), an artist's (their first album with
    /// one), a playlist's (its first song with one), or a picture by its hash (what `coverArt` fields carry).
    static func coverArt(_ call: SubsonicCall) async throws -> SubsonicReply {
        let text = try call.parameters.required("id")
        let requested = try call.parameters.int("size", default: nil)
        // The thumbnailer makes 16 to 2048 pixels; larger asks get the original.
        let size = requested.flatMap { $0 > 2048 || $0 <= 0 ? nil : max($0, 16) }
        let collection = call.services.collection
        let hash: String?
        if text.count == 64, text.allSatisfy(\.isHexDigit) {
            hash = text
        } else {
            switch try SubsonicID.parse(text, parameter: "id", as: .album, .track, .artist, .playlist, .accountPlaylist) {
            case .album(let id): hash = try collection.album(id: id)?.artworkHash
            case .track(let id):
                let track = try collection.track(id: id)
                hash = try track?.artworkHash ?? track.flatMap { try collection.album(id: $0.albumID)?.artworkHash }
            case .artist(let id):
                hash = try collection.albums(sort: ListSort(.year), includeDisliked: true, artistID: id).lazy.compactMap(\.artworkHash).first
            case .playlist(let id): hash = try firstCover(of: AccountPlaylists.Ref(.crate, id), call)
            case .accountPlaylist(let id): hash = try firstCover(of: AccountPlaylists.Ref(.account, id), call)
            case .station: hash = nil
            }
        }
        guard let hash else { throw SubsonicError.notFound("cover art for \(text)") }
        let file: (url: URL, mimeType: String)
        do {
            file = try call.services.runtime.library.artworkFile(hash: hash, size: size)
        } catch {
            throw SubsonicError(.notFound, "cover art \(text): \(ErrorText.describe(error))")
        }
        let body: ResponseBody
        do {
            body = try await FileIO().loadFile(path: file.url.path, context: call.context)
        } catch {
            throw SubsonicError(.notFound, "cover art \(text) cannot be read")
        }
        var headers: HTTPFields = [.contentType: file.mimeType]
        // A hash names one picture forever; an album's or song's picture may change with a rescan.
        headers[.cacheControl] = text == hash ? "max-age=31536000, immutable" : "max-age=86400"
        if let length = SubsonicItems.fileSize(file.url.path) { headers[.contentLength] = String(length) }
        return .media(Response(status: .ok, headers: headers, body: body))
    }
}

/// A `Range` header's one byte range over a file of `size` bytes (RFC 9110 §14): `bytes=START-END`, `START-` or
/// `-LAST`. Anything this does not understand (other units, several ranges) is answered with the whole file, which
/// the RFC allows; a range that starts past the end cannot be satisfied (416).
enum ByteRange: Equatable {
    case whole
    case part(ClosedRange<Int>)
    case unsatisfiable

    static func parse(_ header: String?, size: Int) -> ByteRange {
        guard let header, header.lowercased().hasPrefix("bytes=") else { return .whole }
        let spec = header.dropFirst(6).trimmingCharacters(in: .whitespaces)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .whole }
        let first = spec[..<dash].trimmingCharacters(in: .whitespaces), last = spec[spec.index(after: dash)...].trimmingCharacters(in: .whitespaces)
        if first.isEmpty {
            guard let count = Int(last), count >= 0 else { return .whole }
            guard count > 0, size > 0 else { return .unsatisfiable }
            return .part(max(0, size - count)...(size - 1))
        }
        guard let start = Int(first), start >= 0 else { return .whole }
        let end: Int
        if last.isEmpty {
            end = size - 1
        } else {
            guard let given = Int(last), given >= start else { return .whole }
            end = min(given, size - 1)
        }
        guard start < size else { return .unsatisfiable }
        return .part(start...end)
    }
}
