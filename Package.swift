// swift-tools-version: 6.1
import PackageDescription

// Crate: one core, several front ends. Dependencies point inward:
// Apps -> composition root (CratePlugins) -> front ends -> CrateCore -> (CrateStorage, CrateAudio, CrateFeeds) -> CrateDomain;
// plugins -> CrateDomain (and their own C library, a support library). Core names no plugin and no front end.
//
// Modules/     the core modules, the front ends (Modules/FrontEnds/*), the composition root, the C libraries
// Plugins/     Sources, Decoders, Outputs (one folder each) and Support (code plugins share; not plugins)
// Apps/        crate (the CLI) and crated (start-up)

// The compiler holds the boundaries: an import is internal unless declared `public import`, and a member is visible
// only where its module is imported (so front ends, which never import CrateStorage, cannot reach the store).
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

func system(_ name: String, pkgConfig: String, apt: String) -> Target {
    .systemLibrary(name: name, path: "Modules/CLibraries/\(name)", pkgConfig: pkgConfig, providers: [.apt([apt])])
}

func plugin(_ name: String, path: String, _ deps: [Target.Dependency] = []) -> Target {
    .target(name: name, dependencies: ["CrateDomain"] + deps, path: path, swiftSettings: strict)
}

/// A front end: a library target under Modules/FrontEnds, listed (one line) in the composition root.
func frontEnd(_ name: String, path: String, _ deps: [Target.Dependency], resources: [Resource]? = nil) -> Target {
    .target(name: name, dependencies: ["CrateCore", "CrateDomain", .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")] + deps,
            path: path, resources: resources, swiftSettings: strict)
}

/// The apps' link: lld with packed relative relocations (DT_RELR, glibc 2.36+) and no symbol table for the dynamic
/// loader beyond what it needs. SwiftPM exports every symbol of an executable (40,000 in crated) and a PIE's 133,000
/// relative relocations took 3.1 MiB as RELA: the loader read all of it at every start, 5.5-6.3 MiB of the idle
/// daemon's memory (Benchmarks/README.md). lld ships with the Swift toolchain.
let lean: [LinkerSetting] = [.unsafeFlags(["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
                                           "-Xlinker", "--no-export-dynamic"], .when(platforms: [.linux]))]

/// crated's release link lays out first, together, the functions it runs (Apps/crated/crated.order, written by
/// scripts/order-crated.py under callgrind): Linux maps a binary's pages 64 KiB around each one touched, so the 2.7 MiB
/// of functions a daemon runs, scattered over 29 MiB of code, kept 20 MiB of it resident. Names lld no longer finds
/// are skipped without a word; SwiftPM does not relink when only the list changes.
let ordered: [LinkerSetting] = [.unsafeFlags(["-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/Apps/crated/crated.order",
                                              "-Xlinker", "--no-warn-symbol-ordering"],
                                             .when(platforms: [.linux], configuration: .release))]

func tests(_ name: String, _ deps: [Target.Dependency], exclude: [String] = []) -> Target {
    .testTarget(name: name, dependencies: deps + ["CrateTestSupport"], path: "Tests/\(name)", exclude: exclude, swiftSettings: strict)
}

let package = Package(
    name: "Crate",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "crate", targets: ["crate"]),
        .executable(name: "crated", targets: ["crated"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0", traits: [.defaults, "YAML"]),
        // Already in the graph through swift-configuration; named so the loader can list a file's keys and warn
        // about the ones it does not know.
        .package(url: "https://github.com/jpsim/Yams", "5.4.0"..<"7.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        // Already in the graph through Hummingbird; named for the MPD protocol front end's own listener.
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        // Already in the graph through Hummingbird; named so the daemon can end event streams on shutdown.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // C libraries from Debian, through pkg-config.
        system("COpusFile", pkgConfig: "opusfile", apt: "libopusfile-dev"),
        system("CVorbisFile", pkgConfig: "vorbisfile", apt: "libvorbis-dev"),
        system("CMpg123", pkgConfig: "libmpg123", apt: "libmpg123-dev"),
        system("CFLAC", pkgConfig: "flac", apt: "libflac-dev"),
        system("CALSA", pkgConfig: "alsa", apt: "libasound2-dev"),
        system("CZlib", pkgConfig: "zlib", apt: "zlib1g-dev"),
        // The MPRIS front end's session bus.
        system("CDBus", pkgConfig: "dbus-1", apt: "libdbus-1-dev"),
        system("CEbur128", pkgConfig: "libebur128", apt: "libebur128-dev"),
        // The stream output's encoder (libopus) and its Ogg pages (libogg).
        system("COpus", pkgConfig: "opus", apt: "libopus-dev"),
        system("COgg", pkgConfig: "ogg", apt: "libogg-dev"),
        // FFmpeg (libavformat-dev libavcodec-dev libswresample-dev libavutil-dev): its headers at build time, its
        // libraries loaded when first used (Modules/CLibraries/CFFmpeg/include/CFFmpeg.h says why).
        .target(name: "CFFmpeg", path: "Modules/CLibraries/CFFmpeg", linkerSettings: [.linkedLibrary("dl")]),
        // libcurl (libcurl4-openssl-dev) likewise, for the URLStream and AppleCatalogREST plugins
        // (Modules/CLibraries/CCurl/include/CCurl.h says why).
        .target(name: "CLazyLibrary", path: "Modules/CLibraries/CLazyLibrary", linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "CCurl", dependencies: ["CLazyLibrary"], path: "Modules/CLibraries/CCurl"),
        // libpulse-simple (libpulse-dev) likewise, for the PulseAudio output (Modules/CLibraries/CPulse/include/CPulse.h).
        .target(name: "CPulse", dependencies: ["CLazyLibrary"], path: "Modules/CLibraries/CPulse"),
        // Core's artwork: libjpeg and libpng through a small C shim.
        .target(name: "CImageShim", path: "Modules/CLibraries/CImageShim", linkerSettings: [.linkedLibrary("jpeg"), .linkedLibrary("png16")]),

        // Core modules.
        .target(name: "CrateDomain", path: "Modules/CrateDomain", swiftSettings: strict),
        .target(name: "CrateStorage", dependencies: ["CrateDomain", .product(name: "GRDB", package: "GRDB.swift")],
                path: "Modules/CrateStorage", swiftSettings: strict),
        .target(name: "CrateAudio", dependencies: ["CrateDomain"], path: "Modules/CrateAudio", swiftSettings: strict),
        // EBU R128 loudness (libebur128): tracks measured from decoded PCM, albums from their tracks' meters.
        .target(name: "CrateLoudness", dependencies: ["CrateDomain", "CEbur128"], path: "Modules/CrateLoudness", swiftSettings: strict),
        // The Crate Wall and genre feeds: signals, the dial, composition (pure logic apart from the signals' fetches).
        .target(name: "CrateFeeds", dependencies: ["CrateDomain"], path: "Modules/CrateFeeds", swiftSettings: strict),
        // Core names no plugin: the composition root hands it the plugin list at start-up.
        .target(name: "CrateCore", dependencies: [
            "CrateDomain", "CrateStorage", "CrateAudio", "CrateFeeds", "CrateLoudness",
            "CImageShim",
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "Configuration", package: "swift-configuration"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Yams", package: "Yams"),
            // The daemon runs its front ends as services in one group (ordered graceful shutdown).
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "UnixSignals", package: "swift-service-lifecycle"),
        ], path: "Modules/CrateCore", swiftSettings: strict),

        // Front ends: one folder each under Modules/FrontEnds with its `registration`, listed in the composition root.
        frontEnd("HTTPFrontEnd", path: "Modules/FrontEnds/HTTP", ["CrateAPI", "CZlib", .product(name: "Hummingbird", package: "hummingbird"),
                                                .product(name: "Crypto", package: "swift-crypto"), .product(name: "NIOPosix", package: "swift-nio")],
                 resources: [.copy("Web")]),
        frontEnd("MPDFrontEnd", path: "Modules/FrontEnds/MPD", [.product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio")]),
        frontEnd("MPRISFrontEnd", path: "Modules/FrontEnds/MPRIS", ["CDBus"]),
        frontEnd("SubsonicFrontEnd", path: "Modules/FrontEnds/Subsonic", [.product(name: "Hummingbird", package: "hummingbird"),
                                                                      .product(name: "NIOCore", package: "swift-nio")]),

        // The composition root: the one list of plugins and front ends, and the only importer of them.
        .target(name: "CratePlugins", dependencies: [
            "CrateDomain", "CrateCore", "LocalFilesSource", "AppleCatalogREST", "URLStreamSource",
            "OpusDecoder", "VorbisDecoder", "MP3Decoder", "FLACDecoder", "WAVDecoder", "FFmpegDecoder",
            "PulseAudioOutput", "ALSAOutput", "PipeOutput", "WAVFileOutput", "NullOutput", "FIFOOutput", "StreamOutput",
            "FFmpegEncoder",
            "HTTPFrontEnd", "MPDFrontEnd", "MPRISFrontEnd", "SubsonicFrontEnd",
        ], path: "Modules/CratePlugins", swiftSettings: strict),

        // Plugins: one folder each with its `registration`, listed in Modules/CratePlugins/CratePlugins.swift.
        // Plugins/Support holds code plugins share; none of it is a plugin. DecoderSupport: the codec parsing the
        // decoders share (Ogg page tails, FLAC PICTURE blocks, the cover choice), kept out of Domain, which holds
        // types and protocols only.
        .target(name: "DecoderSupport", dependencies: ["CrateDomain"], path: "Plugins/Support/Decoders", swiftSettings: strict),
        // FFmpegSupport: decoding through libavformat/libavcodec, for the FFmpeg plugin's containers and the Vorbis
        // plugin's files (FFmpeg's Vorbis decoder is twice as fast as libvorbis).
        .target(name: "FFmpegSupport", dependencies: ["CrateDomain", "CFFmpeg", "DecoderSupport"], path: "Plugins/Support/FFmpeg",
                swiftSettings: strict),
        plugin("LocalFilesSource", path: "Plugins/Sources/LocalFiles"),
        plugin("AppleCatalogREST", path: "Plugins/Sources/AppleCatalogREST", ["CCurl", .product(name: "Crypto", package: "swift-crypto")]),
        plugin("URLStreamSource", path: "Plugins/Sources/URLStream", ["CCurl"]),
        plugin("OpusDecoder", path: "Plugins/Decoders/Opus", ["COpusFile", "DecoderSupport"]),
        plugin("VorbisDecoder", path: "Plugins/Decoders/Vorbis", ["CVorbisFile", "DecoderSupport", "FFmpegSupport"]),
        plugin("MP3Decoder", path: "Plugins/Decoders/MP3", ["CMpg123", "DecoderSupport"]),
        plugin("FLACDecoder", path: "Plugins/Decoders/FLAC", ["CFLAC", "DecoderSupport"]),
        plugin("WAVDecoder", path: "Plugins/Decoders/WAV"),
        plugin("FFmpegDecoder", path: "Plugins/Decoders/FFmpeg", ["FFmpegSupport"]),
        plugin("PulseAudioOutput", path: "Plugins/Outputs/PulseAudio", ["CPulse"]),
        plugin("ALSAOutput", path: "Plugins/Outputs/ALSA", ["CALSA"]),
        plugin("PipeOutput", path: "Plugins/Outputs/Pipe"),
        plugin("WAVFileOutput", path: "Plugins/Outputs/WAVFile"),
        plugin("NullOutput", path: "Plugins/Outputs/Null"),
        plugin("FIFOOutput", path: "Plugins/Outputs/FIFO", ["FFmpegSupport"]),
        plugin("StreamOutput", path: "Plugins/Outputs/Stream", ["COpus", "COgg", "FFmpegSupport"]),
        plugin("FFmpegEncoder", path: "Plugins/Encoders/FFmpeg", ["FFmpegSupport", "CFFmpeg"]),

        // The shapes of crated's HTTP API, declared once for the HTTP front end and its clients.
        .target(name: "CrateAPI", dependencies: ["CrateDomain"], path: "Modules/CrateAPI", swiftSettings: strict),
        // The Swift client of crated's HTTP API: the CLI's, and any other Swift front end's.
        // Its HTTP client is SwiftNIO's HTTP/1 codec (HTTPExchange), so no `crate` command depends on FoundationNetworking's
        // URLSession (libcurl's start-up, Bundle.main's) and the build has no TLS or HTTP/2 it would not use.
        .target(name: "CrateClient", dependencies: ["CrateDomain", "CrateAPI", .product(name: "NIOCore", package: "swift-nio"),
                                                    .product(name: "NIOPosix", package: "swift-nio"),
                                                    .product(name: "NIOHTTP1", package: "swift-nio")],
                path: "Modules/CrateClient", swiftSettings: strict),

        // The apps: the CLI, and the daemon's start-up.
        .executableTarget(name: "crate", dependencies: [
            "CrateCore", "CratePlugins", "CrateAPI", "CrateClient", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], path: "Apps/crate", swiftSettings: strict, linkerSettings: lean),
        .executableTarget(name: "crated", dependencies: [
            "CrateCore", "CratePlugins", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ], path: "Apps/crated", exclude: ["crated.order"], swiftSettings: strict, linkerSettings: lean + ordered),

        // Benchmarks: run by Benchmarks/run.sh next to the reference tools.
        .executableTarget(name: "crate-bench", dependencies: ["CrateCore", "CratePlugins", "CrateAudio", "CrateDomain", "CrateStorage", "NullOutput", "WAVFileOutput"], path: "Benchmarks/CrateBench",
                          swiftSettings: strict),

        // Tests: real files, a real database, real servers.
        .target(name: "CrateTestSupport", dependencies: ["CrateDomain", .product(name: "Crypto", package: "swift-crypto")], path: "Tests/CrateTestSupport", swiftSettings: strict),
        // A real Hummingbird server on 127.0.0.1 and its client (CrateClient's), for the front ends' and fakes' tests.
        .target(name: "HTTPTestSupport", dependencies: ["CrateClient", .product(name: "Hummingbird", package: "hummingbird"),
                                                        .product(name: "NIOCore", package: "swift-nio"),
                                                        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                                                        .product(name: "Logging", package: "swift-log")],
                path: "Tests/HTTPTestSupport", swiftSettings: strict),
        tests("CrateDomainTests", ["CrateDomain"]),
        tests("CrateStorageTests", ["CrateStorage"]),
        tests("CrateAudioTests", ["CrateAudio", "WAVDecoder", "FLACDecoder", "VorbisDecoder", "OpusDecoder", "MP3Decoder",
                                  "FFmpegDecoder", "WAVFileOutput", "NullOutput", "URLStreamSource"]),
        tests("CrateFeedsTests", ["CrateFeeds"]),
        tests("CrateCoreTests", ["CrateCore", "CratePlugins", "CrateLoudness", "NullOutput", .product(name: "GRDB", package: "GRDB.swift")]),
        tests("LocalFilesSourceTests", ["LocalFilesSource", "CrateCore", "FLACDecoder", "MP3Decoder", "WAVDecoder", "OpusDecoder", "VorbisDecoder"]),
        tests("OpusDecoderTests", ["OpusDecoder"]),
        tests("VorbisDecoderTests", ["VorbisDecoder", "FFmpegSupport"]),
        tests("MP3DecoderTests", ["MP3Decoder"]),
        tests("FLACDecoderTests", ["FLACDecoder", "DecoderSupport"]),
        tests("WAVDecoderTests", ["WAVDecoder"]),
        tests("FFmpegDecoderTests", ["FFmpegDecoder", "DecoderSupport", "URLStreamSource"]),
        tests("PulseAudioOutputTests", ["PulseAudioOutput"]),
        tests("WAVFileOutputTests", ["WAVFileOutput"]),
        tests("NullOutputTests", ["NullOutput"]),
        tests("FIFOOutputTests", ["FIFOOutput"]),
        tests("StreamOutputTests", ["StreamOutput"]),
        tests("URLStreamSourceTests", ["URLStreamSource"], exclude: ["radio_server.py"]),
        tests("CrateAppsTests", ["crate", "crated"]),
        // The front ends in process: the seam (a fake front end added by one line), the MPD session fed lines.
        tests("FrontEndTests", ["CrateCore", "CrateFeeds", "CratePlugins", "CrateAPI", "CrateClient", "MPDFrontEnd", "HTTPFrontEnd",
                                .product(name: "Hummingbird", package: "hummingbird"), "HTTPTestSupport",
                                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"), .product(name: "NIOCore", package: "swift-nio")]),
        // The OpenSubsonic API in process: the envelope in XML and JSON, the ways to sign in, the error codes, the endpoints.
        tests("SubsonicTests", ["CrateCore", "CratePlugins", "SubsonicFrontEnd", .product(name: "Hummingbird", package: "hummingbird"),
                                "HTTPTestSupport", .product(name: "Crypto", package: "swift-crypto")]),
        // The production catalog client against a loopback server that serves the documented JSON shapes.
        // It also runs the crate and crated binaries (the CLI and daemon against the fake catalog): declared, so they are built.
        tests("AppleCatalogRESTTests", ["AppleCatalogREST", "crate", "crated", .product(name: "Hummingbird", package: "hummingbird"),
                                        .product(name: "Crypto", package: "swift-crypto"), "HTTPTestSupport"]),
    ]
)
