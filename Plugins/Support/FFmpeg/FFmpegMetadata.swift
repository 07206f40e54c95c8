import CFFmpeg
import CrateDomain
import DecoderSupport
import Foundation

/// libavformat's metadata as Crate's tags. Demuxers already turn their formats' names into FFmpeg's generic keys
/// (MP4 `©nam` → `title`, `trkn` → `track` "3/12", `disk` → `disc`; ASF `WM/AlbumArtist` → `album_artist`); APE tags
/// (WavPack, Monkey's Audio) keep their own keys ("Album Artist", "Year"). All of them are Vorbis-comment-like, so
/// `TagMapper.vorbisComment` maps them once the few FFmpeg-only names are translated.
enum FFmpegMetadata {
    /// Every entry of `dictionary`, in its order.
    static func entries(_ dictionary: OpaquePointer?, _ ff: FFmpegFunctions) -> [(key: String, value: String)] {
        guard let dictionary else { return [] }
        var out: [(String, String)] = []
        var entry: UnsafeMutablePointer<AVDictionaryEntry>?
        while let next = ff.av_dict_get(dictionary, "", entry, AV_DICT_IGNORE_SUFFIX) {
            entry = next
            guard let key = next.pointee.key, let value = next.pointee.value else { continue }
            out.append((String(cString: key), String(cString: value)))
        }
        return out
    }

    /// The container's tags first, then the audio stream's (some formats keep them there).
    static func tags(format: OpaquePointer?, stream: OpaquePointer?, _ ff: FFmpegFunctions) -> TrackTags {
        var mapper = TagMapper()
        for (key, value) in entries(format, ff) + entries(stream, ff) {
            mapper.vorbisComment(vorbisName(key), value)
        }
        return mapper.tags
    }

    /// FFmpeg's generic key as the Vorbis comment name `TagMapper` knows.
    static func vorbisName(_ key: String) -> String {
        switch key.lowercased() {
        case "sort_artist": "ARTISTSORT"
        case "sort_album_artist": "ALBUMARTISTSORT"
        // MP4 freeform (`----:com.apple.iTunes:MusicBrainz Album Id`) and ASF (`MusicBrainz/Album Id`) names.
        case "musicbrainz album id", "musicbrainz/album id": "MUSICBRAINZ_ALBUMID"
        case "wm/iscompilation": "COMPILATION"
        // ASF's disc subtitle, and ID3v2.4's frame id, which FFmpeg's ID3 reader keeps as it is (raw AAC's tags).
        // MP4 freeform and APE keys already read DISCSUBTITLE.
        case "wm/setsubtitle", "tsst": "DISCSUBTITLE"
        default: key
        }
    }

    /// The iTunes gapless tag, `iTunSMPB`: " 00000000 00000840 000001CA 00000000003F31F6 ...", hexadecimal fields
    /// (reserved, encoder delay, padding, original length in samples).
    struct GaplessInfo: Equatable {
        var priming: Int64
        var padding: Int64
        var frames: Int64
    }

    static func iTunesGapless(_ format: OpaquePointer?, _ ff: FFmpegFunctions) -> GaplessInfo? {
        guard let value = entries(format, ff).first(where: { $0.key.lowercased() == "itunsmpb" })?.value else { return nil }
        let fields = value.split(whereSeparator: \.isWhitespace)
        guard fields.count >= 4, fields[1].count <= 8, fields[2].count <= 8, fields[3].count <= 16,
              let priming = Int64(fields[1], radix: 16), let padding = Int64(fields[2], radix: 16),
              let frames = UInt64(fields[3], radix: 16), frames > 0, frames <= UInt64(Int64.max) else { return nil }
        return GaplessInfo(priming: priming, padding: padding, frames: Int64(frames))
    }

    /// The cover among the attached pictures (MP4 `covr`, ASF `WM/Picture`, APE "Cover Art (Front)"): the first front
    /// cover, else the first picture. MP4 covers carry no picture type: they are the cover.
    static func picture(_ context: UnsafeMutablePointer<AVFormatContext>, _ ff: FFmpegFunctions) -> EmbeddedPicture? {
        var cover = CoverChoice()
        guard let streams = context.pointee.streams else { return nil }
        for i in 0..<Int(context.pointee.nb_streams) where !cover.isSettled {
            guard let stream = streams[i], stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0 else { continue }
            let packet = stream.pointee.attached_pic
            guard let data = packet.data, packet.size > 0 else { continue }
            let comment = entries(stream.pointee.metadata, ff).first { $0.key == "comment" }?.value.lowercased() ?? ""
            let type: UInt32 = comment.isEmpty || comment.contains("front") ? PictureBlock.frontCover : 0
            cover.consider(type: type) { EmbeddedPicture(copying: UnsafeRawBufferPointer(start: data, count: Int(packet.size))) }
        }
        return cover.picture
    }
}
