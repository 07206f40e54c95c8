import CrateCore
import CrateDomain
import Foundation
import Hummingbird

/// The media itself: a song's file (stream and download send the original bytes, byte ranges honoured, so apps
/// seek and resume) and cover art (the library's pictures, scaled when asked).
enum MediaEndpoints {
    static let all: [String: SubsonicEndpoint] = [
        // Crate does not transcode yet: `maxBitRate` and `format` are accepted and the original file is sent.
        "stream": .signedIn { try await file($0, download: false) },
        "download": .signedIn { try await file($0, download: true) },
        "getCoverArt": .signedIn(coverArt),
    ]

    // MARK: Songs

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
            body = try await FileIO().loadFile(path: path, range: sent, context: call.context)
        } catch {
            throw SubsonicError(.notFound, "the file of song tr-\(track.id) cannot be read")
        }
        return .media(Response(status: range == nil ? .ok : .partialContent, headers: headers, body: body))
    }

    // MARK: Cover art

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
            switch try SubsonicID.parse(text, parameter: "id", as: .album, .track, .artist, .playlist) {
            case .album(let id): hash = try collection.album(id: id)?.artworkHash
            case .track(let id):
                let track = try collection.track(id: id)
                hash = try track?.artworkHash ?? track.flatMap { try collection.album(id: $0.albumID)?.artworkHash }
            case .artist(let id):
                hash = try collection.albums(sort: ListSort(.year), includeDisliked: true, artistID: id).lazy.compactMap(\.artworkHash).first
            case .playlist(let id): hash = try collection.playlistEntries(id: id).lazy.compactMap(\.track.artworkHash).first
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
