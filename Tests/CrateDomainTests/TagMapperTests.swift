@testable import CrateDomain
import Testing

@Suite struct TagMapperTests {
    @Test func vorbisCommentsMapToTags() {
        var m = TagMapper()
        for c in ["TITLE=Song", "artist=Someone", "ALBUMARTIST=Band", "ALBUM=Record", "GENRE=Rock", "DATE=1997-05-21",
                  "TRACKNUMBER=3/12", "DISCNUMBER=2", "DISCTOTAL=2", "MUSICBRAINZ_ALBUMID=ABC-123", "COMPILATION=1",
                  "no equals sign", "TITLE=Second title ignored"] {
            m.vorbisComment(c)
        }
        let t = m.tags
        #expect(t.title == "Song" && t.artist == "Someone" && t.albumArtist == "Band" && t.album == "Record")
        #expect(t.genre == "Rock" && t.date == "1997-05-21" && t.year == 1997)
        #expect(t.trackNumber == 3 && t.trackTotal == 12 && t.discNumber == 2 && t.discTotal == 2)
        #expect(t.musicBrainzAlbumID == "ABC-123" && t.isCompilation)
    }

    @Test func id3FramesMapToTags() {
        var m = TagMapper()
        m.id3Frame("TIT2", "Song")
        m.id3Frame("TPE1", "Someone")
        m.id3Frame("TPE2", "Band")
        m.id3Frame("TALB", "Record")
        m.id3Frame("TCON", "(17)")
        m.id3Frame("TYER", "2001")
        m.id3Frame("TRCK", "07/10")
        m.id3Frame("TPOS", "1/2")
        m.id3Frame("TXXX", "f00d", description: "MusicBrainz Album Id")
        let t = m.tags
        #expect(t.title == "Song" && t.artist == "Someone" && t.albumArtist == "Band" && t.album == "Record")
        #expect(t.genre == "Rock" && t.year == 2001)
        #expect(t.trackNumber == 7 && t.trackTotal == 10 && t.discNumber == 1 && t.discTotal == 2)
        #expect(t.musicBrainzAlbumID == "f00d")
    }

    /// The disc subtitle's every spelling: Vorbis DISCSUBTITLE (any case) or SETSUBTITLE, ID3v2.4 TSST, and the TXXX
    /// frames ID3v2.3 taggers write; the first non-blank value wins, as for other fields.
    @Test func discSubtitleMapsFromEveryForm() {
        var vorbis = TagMapper()
        vorbis.vorbisComment("discsubtitle=  The Live Set ")
        vorbis.vorbisComment("DISCSUBTITLE=Second value ignored")
        #expect(vorbis.tags.discSubtitle == "The Live Set")
        var older = TagMapper()
        older.vorbisComment("SETSUBTITLE", "Studio")
        #expect(older.tags.discSubtitle == "Studio")
        var blank = TagMapper()
        blank.vorbisComment("DISCSUBTITLE", "   ")
        blank.vorbisComment("SUBTITLE", "A track's subtitle, not the disc's")
        #expect(blank.tags.discSubtitle == nil)

        var tsst = TagMapper()
        tsst.id3Frame("TSST", "The Live Set")
        tsst.id3Frame("TXXX", "Ignored after TSST", description: "DISCSUBTITLE")
        #expect(tsst.tags.discSubtitle == "The Live Set")
        for description in ["DISCSUBTITLE", "DiscSubtitle", "SETSUBTITLE"] {
            var txxx = TagMapper()
            txxx.id3Frame("TXXX", "Bonus Disc", description: description)
            #expect(txxx.tags.discSubtitle == "Bonus Disc", "\(description)")
        }
        var other = TagMapper()
        other.id3Frame("TIT3", "A track's subtitle")
        other.id3Frame("TXXX", "x", description: "SUBTITLE")
        #expect(other.tags.discSubtitle == nil)
    }

    @Test func riffInfoMapsToTags() {
        var m = TagMapper()
        m.riffInfo("INAM", "Song")
        m.riffInfo("IART", "Someone")
        m.riffInfo("IPRD", "Record")
        m.riffInfo("IPRT", "4")
        #expect(m.tags.title == "Song" && m.tags.album == "Record" && m.tags.trackNumber == 4)
    }

    @Test func junkNumbersAndBlankValuesAreIgnored() {
        var m = TagMapper()
        m.vorbisComment("TRACKNUMBER", "x")
        m.vorbisComment("DISCNUMBER", "99999999999999999999")
        m.vorbisComment("TITLE", "   ")
        m.vorbisComment("DATE", "unknown")
        #expect(m.tags.trackNumber == nil && m.tags.discNumber == nil && m.tags.title == nil && m.tags.year == nil)
    }

    /// Issue 16, item 3: every value of a multi-valued genre is kept (only the first was), without repeats.
    @Test func genreKeepsEveryValue() {
        var vorbis = TagMapper()
        for c in ["GENRE=Disco", "GENRE=Funk", "genre=disco", "GENRE=Soul; Funk"] { vorbis.vorbisComment(c) }
        #expect(vorbis.tags.genre == "Disco; Funk; Soul")
        var id3 = TagMapper()
        id3.id3Frame("TCON", "Electronic")
        id3.id3Frame("TCON", "Disco")
        #expect(id3.tags.genre == "Electronic; Disco")
        #expect(TagMapper.id3Genre("(17)(4)") == "Rock; Disco")
        #expect(TagMapper.id3Genre("(4)Eurodisco") == "Eurodisco")
        #expect(TagMapper.id3Genre("4") == "Disco")
        #expect(TagMapper.id3Genre("(Live) Rock") == "(Live) Rock")
        #expect(GenreList.adding("Funk; Disco", to: "Disco") == "Disco; Funk")
        #expect(GenreList.adding(nil, to: "Rock") == "Rock" && GenreList.adding("Rock", to: nil) == "Rock")
    }
}
