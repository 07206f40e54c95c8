#!/usr/bin/env python3
"""Writes the small seed inputs in Fuzz/<Target>/seeds/ (committed; run again only to change them).

Each seed is a valid or nearly valid input of its parser, so the fuzzer starts from the interesting paths
instead of rediscovering RIFF, ID3 or base64 from nothing. Crashing inputs found later are added by hand
as seeds named crash-<what>."""
import base64
import os
import struct

ROOT = os.path.dirname(os.path.abspath(__file__))


def write(target, name, data):
    folder = os.path.join(ROOT, target, "seeds")
    os.makedirs(folder, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


# --- ID3v2 ---------------------------------------------------------------------------------------------------
def syncsafe(n):
    return bytes([(n >> 21) & 0x7F, (n >> 14) & 0x7F, (n >> 7) & 0x7F, n & 0x7F])


def id3(version, frames, flags=0, extended=b""):
    body = extended
    for fid, payload, fflags in frames:
        if version == 2:
            body += fid.encode() + struct.pack(">I", len(payload))[1:] + payload
        elif version == 3:
            body += fid.encode() + struct.pack(">I", len(payload)) + bytes([0, fflags]) + payload
        else:
            body += fid.encode() + syncsafe(len(payload)) + bytes([0, fflags]) + payload
    body += bytes(8)  # padding
    return b"ID3" + bytes([version, 0, flags]) + syncsafe(len(body)) + body


def utf8(text):
    return b"\x03" + text.encode("utf-8")


def utf16(text):
    return b"\x01\xff\xfe" + text.encode("utf-16-le")


def latin1(text):
    return b"\x00" + text.encode("latin-1")


v24 = id3(4, [("TIT2", utf8("Ünïcode Song"), 0), ("TPE1", utf8("Søren"), 0), ("TRCK", utf8("3/12"), 0),
              ("TCON", utf8("Jazz\x00Bebop"), 0), ("TXXX", utf8("ALBUMARTIST\x00Various Artists"), 0),
              ("TDRC", utf8("1999-05-01"), 0)])
v23 = id3(3, [("TIT2", utf16("Wide Title"), 0), ("TPE1", utf16("Ça va"), 0), ("TPOS", utf16("2/2"), 0),
              ("USLT", b"\x01eng" + b"\xff\xfe\x00\x00" + "la la".encode("utf-16-le"), 0)])
v22 = id3(2, [("TT2", latin1("Old Title"), 0), ("TP1", latin1("Café"), 0), ("TRK", latin1("7"), 0)])
# 2.3 with whole-tag unsynchronisation and an extended header (size 6 + 4).
v23_unsync = id3(3, [("TIT2", latin1("A\xff\x00B"), 0)], flags=0xC0, extended=struct.pack(">I", 6) + bytes(6))
# 2.4 with a frame marked unsynchronised and UTF-16BE text.
v24_frame_unsync = id3(4, [("TALB", b"\x02" + "Nord".encode("utf-16-be"), 0x02),
                           ("TCON", latin1("(17)Rock"), 0)])

for name, tag in [("v24", v24), ("v23", v23), ("v22", v22), ("v23-unsync", v23_unsync),
                  ("v24-frame-unsync", v24_frame_unsync)]:
    write("ID3Chunk", name, tag)


# --- WAV -----------------------------------------------------------------------------------------------------
def chunk(cid, body):
    return cid.encode() + struct.pack("<I", len(body)) + body + (b"\x00" if len(body) % 2 else b"")


def fmt(tag, channels, rate, bits, extensible=False):
    align = channels * bits // 8
    body = struct.pack("<HHIIHH", 0xFFFE if extensible else tag, channels, rate, rate * align, align, bits)
    if extensible:
        guid_tail = b"\x00\x00\x00\x00\x10\x00\x80\x00\x00\xaa\x00\x38\x9b\x71"
        body += struct.pack("<HHI", 22, bits, 3) + struct.pack("<H", tag) + guid_tail
    return chunk("fmt ", body)


def riff(*chunks):
    body = b"WAVE" + b"".join(chunks)
    return b"RIFF" + struct.pack("<I", len(body)) + body


info = chunk("LIST", b"INFO" + chunk("INAM", b"Old\x00") + chunk("IART", b"Caf\xe9\x00") + chunk("ICRD", b"1999\x00")
             + chunk("ITRK", b"4/9\x00"))
pcm16 = bytes(range(0, 200, 1))
write("WAV", "pcm16-info-id3", riff(fmt(1, 2, 44100, 16), info, chunk("id3 ", v24), chunk("data", pcm16)))
write("WAV", "pcm8-mono", riff(fmt(1, 1, 8000, 8), chunk("data", bytes(range(0, 255, 3)))))
write("WAV", "pcm24-id3-upper", riff(fmt(1, 2, 48000, 24), chunk("data", bytes(120)), chunk("ID3 ", v23)))
write("WAV", "float32-extensible", riff(fmt(3, 2, 96000, 32, extensible=True),
                                        chunk("data", struct.pack("<8f", 0.5, -0.5, 2.0, -2.0, 0.0, 1.0, -1.0, 0.25))))
write("WAV", "float64", riff(fmt(3, 1, 44100, 64), chunk("data", struct.pack("<4d", 0.1, -0.1, 1e9, -1e9))))
write("WAV", "pcm32", riff(fmt(1, 1, 44100, 32), chunk("data", bytes(32))))
# A streamed file: the data size is the 0xFFFFFFFF placeholder.
write("WAV", "unknown-data-size",
      riff(fmt(1, 1, 22050, 16)) + b"data" + struct.pack("<I", 0xFFFFFFFF) + bytes(64))
write("WAV", "odd-chunk-padding", riff(fmt(1, 1, 8000, 8), chunk("junk", b"abc"), chunk("data", b"\x80" * 9)))


# --- Ogg page tails ------------------------------------------------------------------------------------------
def ogg_page(body_segments, flags=0, seq=0):
    lacing = bytes(len(s) for s in body_segments)
    header = b"OggS" + bytes([0, flags]) + struct.pack("<qIII", 0, 1234, seq, 0) + bytes([len(lacing)]) + lacing
    return header + b"".join(body_segments)


page1 = ogg_page([b"OpusHead" + bytes(11)], flags=2)
page2 = ogg_page([b"OpusTags" + bytes(8), bytes(255)[:200]], seq=1)
write("OggTail", "two-pages", page1 + page2)
write("OggTail", "cut-last-page", (page1 + page2)[:-30])
write("OggTail", "trailing-tag", page1 + page2 + b"TAG" + bytes(125))
write("OggTail", "cut-in-header", page1 + page2[:20])


# --- FLAC PICTURE blocks -------------------------------------------------------------------------------------
jpeg = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xd9"
png = b"\x89PNG\r\n\x1a\n" + bytes(16)


def picture(ptype, mime, description, data):
    return (struct.pack(">I", ptype) + struct.pack(">I", len(mime)) + mime.encode() + struct.pack(">I", len(description))
            + description.encode() + struct.pack(">IIII", 64, 64, 24, 0) + struct.pack(">I", len(data)) + data)


front = picture(3, "image/jpeg", "Front", jpeg)
back = picture(4, "image/png", "", png)
write("PictureBlock", "binary-front-jpeg", front)
write("PictureBlock", "binary-back-png", back)
write("PictureBlock", "comment-with-key", b"METADATA_BLOCK_PICTURE=" + base64.b64encode(front))
write("PictureBlock", "comment-lowercase-key", b"metadata_block_picture=" + base64.b64encode(back))
write("PictureBlock", "comment-no-padding", base64.b64encode(front).rstrip(b"="))
write("PictureBlock", "comment-bad-char", b"METADATA_BLOCK_PICTURE=" + base64.b64encode(front)[:20] + b"*" + b"AAAA")


# --- MP3 resync after a damaged ID3v2 header ------------------------------------------------------------------
def mpeg_frame(header):
    # MPEG-1 layer III 128 kbps 44.1 kHz, no padding: 417 bytes.
    return header + bytes(417 - len(header))


h = b"\xff\xfb\x90\x00"
frames = mpeg_frame(h) * 3
write("MP3Resync", "tag-size-past-end", b"ID3\x04\x00\x00" + syncsafe(100000) + b"junk" * 10 + frames)
write("MP3Resync", "tag-fits", b"ID3\x03\x00\x00" + syncsafe(10) + bytes(10) + frames)
write("MP3Resync", "mpeg2-layer2", b"ID3\x04\x00\x00" + syncsafe(5000) + (b"\xff\xf4\x80\x00" + bytes(572)) * 2)
write("MP3Resync", "stray-sync", b"ID3\x04\x00\x00" + syncsafe(5000) + b"\xff\xfb\x90\x00\xff\xe0" + bytes(30) + frames)


# --- M3U -----------------------------------------------------------------------------------------------------
write("M3U", "extm3u", "#EXTM3U\n#EXTINF:215,The Beatles - Hey Jude\nBeatles/Hey Jude.flac\n"
      "#EXTINF:-1,Radio\nhttp://radio.example/stream\n/music/abs/path.mp3\n")
write("M3U", "windows", "#EXTM3U\r\n#EXTINF:60,A - B - C\r\nC:\\Music\\Artist\\Album\\01 Song.flac\r\n"
      "\\\\server\\share\\x.mp3\r\nsub\\folder\\y.ogg\r\nfile:///music/z.wav\r\n")
write("M3U", "mixed-latin1", b"#EXTM3U\n#EXTINF:10,Caf\xe9 - Cr\xe8me\ncaf\xe9.mp3\n" + "Søren/ø.flac\n".encode())
write("M3U", "bom", "\ufeff#EXTM3U\n\ufeffsong.mp3\n#EXTINF: 12 , \nother.mp3\n")


# --- Radio playlists (PLS, XSPF, M3U) -------------------------------------------------------------------------
write("RadioPlaylist", "pls", "[playlist]\nNumberOfEntries=2\nFile1=http://a.example:8000/stream\nTitle1=A\n"
      "file2 = https://b.example/live.mp3\nLength1=-1\nVersion=2\n")
write("RadioPlaylist", "xspf", '<?xml version="1.0" encoding="UTF-8"?>\n<playlist version="1" '
      'xmlns="http://xspf.org/ns/0/"><trackList><track><location>http://c.example/x.ogg</location></track>'
      '<track><location> https://d.example/&amp;y </location></track></trackList></playlist>\n')
write("RadioPlaylist", "m3u", "#EXTM3U\n#EXTINF:-1,Station\nhttp://e.example/stream\nrelative/path.mp3\n")
write("RadioPlaylist", "hls", "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:10\nseg1.ts\n")
write("RadioPlaylist", "latin1-pls", b"[playlist]\nFile1=http://f.example/caf\xe9\n")


# --- ICY metadata ---------------------------------------------------------------------------------------------
# The first two bytes are the metadata interval - 1 (big-endian, modulo 4096), the third the read size; the rest
# is the response body.
def icy_block(text):
    raw = text.encode("utf-8") if isinstance(text, str) else text
    n = (len(raw) + 15) // 16
    return bytes([n]) + raw + bytes(n * 16 - len(raw))


interval = 16
body = (bytes(range(16)) + icy_block("StreamTitle='Artist - Song';StreamUrl='';") + bytes(range(16, 32)) + b"\x00"
        + bytes(16) + icy_block(b"StreamTitle='Caf\xe9';") + bytes(16) + icy_block("StreamTitle='no end"))
write("ICY", "titles", struct.pack(">H", interval - 1) + bytes([5]) + body)
write("ICY", "big-chunks", struct.pack(">H", interval - 1) + bytes([255]) + body)

# --- Search queries -------------------------------------------------------------------------------------------
for i, q in enumerate([
    "artist:beatles year:1965..1970 ^live title+",
    "added:-30d.. genre:rock jude",
    "^artist:x ^album:y added:2026-01..2026-06-30 year-",
    "year:2000..1990",
    "^year:1990 added:2026-13-01",
    "Søren Straße Łukasz ÆSOP þorn",
    "ac:dc 10:15 Live: album: year:..1989",
    "added:..2026 added:2026-02-30 added:-2w..-1w",
]):
    write("SearchQuery", "query-%d" % i, q)

# --- Config values (key=value a line; NUL-separated when a value holds a newline) ------------------------------
for name, text in [
    ("address-ipv4", "http.address=127.0.0.1:6610\n"),
    ("address-ipv6", "http.address=[::1]:6600\n"),
    ("address-wildcard", "http.address=0.0.0.0:80\nhttp.token=0123456789abcdefXYZ\n"),
    ("address-name", "http.address=localhost:65535\n"),
    ("address-no-host", "http.address=:123\n"),
    ("address-port-too-big", "http.address=host:99999\n"),
    ("address-bare-port", "http.address=6610\nhttp.address=0\n"),
    ("names", "sources.enabled=localfiles, urlstream,,applecatalog\ndecoders.order= flac ,opus\n"
              "decoders.disabled=mp3,nosuch\noutput.plugin=pulse\n"),
    ("integers", "artwork.thumbnail_size=300\nartwork.repair_limit=-1\nhttp.max_body_bytes=1048576\n"
                 "http.idle_timeout=0\nhttp.max_connections=+8\nhttp.max_event_clients=99999999999999999999\n"),
    ("booleans", "import.delete_originals=Yes\nimport.delete_originals=off\nimport.delete_originals=maybe\n"),
    ("tildes", "data.directory=~/Music/crate\nimport.folder=~\nhttp.token_file=~/.config/crate/token\n"),
    ("http", "http.allowed_hosts=Music.Home, 192.168.1.5:6610\n"
             "http.cors_origins=https://app.example, http://localhost:5173/\nhttp.token=abcdefghijklmnopq\n"),
    ("http-refused", "http.allowed_hosts=a/b\nhttp.cors_origins=ftp://x, https://app.example/path\nhttp.token=short\n"),
    ("typos", "outptu.plugin=pulse\nstorefront=gb\nhttp.adress=127.0.0.1:6610\nDATA.DIRECTORY=/x\n"),
    ("nul-separated", "http.token=line one\nline two\x00sources.enabled=local\nfiles\x00http.address=[fe80::1%eth0]:6610"),
]:
    write("Config", name, text)
