// `crate-bench wall`: times the Crate Wall (and a genre feed) in-process, the way the daemon composes it:
// CrateRuntime from the CRATE_* environment, then FeedService.regenerateWall (or .genre). Run by
// Benchmarks/feeds.sh next to a loopback catalog that answers after a fixed delay.

import CrateCore
import CrateDomain
import CratePlugins
import CrateStorage
import Foundation

enum WallBench {
    static let usage = """
        usage: crate-bench wall [--data-dir DIR] [--local-only | --catalog-only | --both] [--genre NAME]
                                [--cold N] [--runs N] [--seed N] [--label NAME] [--timeline FILE] [--prepare[-only]]

        Composes the wall (or with --genre the genre feed) through FeedService, as crated does, and prints
        key=value lines: albums on the page, per source, failures, and milliseconds of
          first  the first compose of --cold fresh runtimes (default 3): empty catalog cache, storefront
                 lookup, developer token signed;
          later  --runs more composes (default 10) on the last runtime, one after the other.
        --local-only    the library in --data-dir, catalog source disabled
        --catalog-only  an empty temporary library, catalog from CRATE_SOURCES_APPLECATALOG_* (base URL, key, user token)
        --both          the library in --data-dir and the catalog (default)
        --prepare       first give the library in --data-dir plays, likes and dislikes (seeded, once: a
                        setting marks the library as prepared), so every local signal has material;
                        --prepare-only stops there
        --timeline FILE appends one tab-separated row per compose: label, first|later, index, start and end
                        (Unix seconds), ms, albums, local, catalog, failures (for fake_apple.py analyze)
        """

    static let preparedSetting = "bench.wall.prepared"
}

struct WallOptions {
    enum Mode: String { case local, catalog, both }
    var dataDir: String?
    var mode = Mode.both
    var genre: String?
    var cold = 3
    var runs = 10
    var seed: UInt64 = 1
    var label: String?
    var timeline: String?
    var prepare = false
    var prepareOnly = false
    var help = false

    init(_ args: ArraySlice<String>) throws {
        var reader = ArgumentReader(rest: args)
        while let arg = reader.next() {
            switch arg {
            case "--data-dir", "--db-dir": dataDir = try reader.value(after: arg)
            case "--local-only": mode = .local
            case "--catalog-only": mode = .catalog
            case "--both": mode = .both
            case "--genre": genre = try reader.value(after: arg)
            case "--cold": cold = try reader.positiveInt(after: arg)
            case "--runs", "-n": runs = try reader.positiveInt(after: arg)
            case "--seed": seed = UInt64(try reader.positiveInt(after: arg))
            case "--label": label = try reader.value(after: arg)
            case "--timeline": timeline = try reader.value(after: arg)
            case "--prepare": prepare = true
            case "--prepare-only": (prepare, prepareOnly) = (true, true)
            case "-h", "--help": help = true
            default: throw UsageError(description: "wall: unknown argument '\(arg)'")
            }
        }
        if !help, mode != .catalog, dataDir == nil {
            throw UsageError(description: "wall --\(mode == .local ? "local-only" : "both") needs --data-dir DIR (the library)")
        }
    }
}

/// One timed compose.
struct ComposeSample {
    var kind: String
    var index: Int
    var start: Double
    var end: Double
    var ms: Double
    var page: FeedPage

    var albums: Int { page.entries.count }
    func count(_ source: String) -> Int { page.entries.filter { $0.source == source }.count }
}

/// Gives an imported library what a listener's has: plays on about 8% of the albums (most a few, some
/// many, over the last 120 days), 120 liked albums (half among the played) and 40 disliked ones. Once per
/// library: a setting records it. Returns what it did.
func prepareWallLibrary(_ store: LibraryStore, seed: UInt64) throws -> String {
    if let done = try store.setting(WallBench.preparedSetting) { return "kept (\(done))" }
    let facts = try store.albumFacts()
    guard facts.count >= 200 else { throw BenchFailure(description: "wall --prepare: the library has \(facts.count) albums") }
    var rng = SplitMix64(seed: seed)
    let ids = facts.map(\.id).shuffled(using: &rng)
    let played = ids.prefix(facts.count * 8 / 100)
    let now = Date()
    var plays = 0
    for album in played {
        guard let track = try store.tracks(albumID: album).first else { continue }
        // Cubed: most albums a few plays, a few albums up to 20.
        let times = 1 + Int(pow(Double.random(in: 0..<1, using: &rng), 3) * 20)
        for _ in 0..<times {
            try store.recordPlay(trackID: track.id, at: now.addingTimeInterval(-Double.random(in: 0..<120 * 86_400, using: &rng)))
        }
        plays += times
    }
    let liked = Array(played.prefix(60)) + Array(ids.dropFirst(played.count).prefix(60))
    for id in liked { try store.setOpinion(.album, id: id, .favorite) }
    let disliked = ids.dropFirst(played.count + 60).prefix(40)
    for id in disliked { try store.setOpinion(.album, id: id, .dislike) }
    let note = "seed \(seed): \(plays) plays on \(played.count) albums, \(liked.count) liked, \(disliked.count) disliked"
    try store.setSetting(WallBench.preparedSetting, note)
    return "made (\(note))"
}

func wallCommand(_ options: WallOptions) async throws {
    if options.help {
        print(WallBench.usage)
        return
    }
    let fm = FileManager.default
    var dataDir = options.dataDir ?? ""
    var scratch: URL?
    if options.mode == .catalog {
        // Catalog only: a library with nothing in it, so no local signal takes part.
        let dir = fm.temporaryDirectory.appendingPathComponent("crate-bench-wall-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try fm.createDirectory(at: dir, withIntermediateDirectories: true)
        scratch = dir
        dataDir = dir.path
    }
    defer { if let scratch { try? fm.removeItem(at: scratch) } }
    var prepared = "no"
    if options.prepare, options.mode != .catalog {
        prepared = try prepareWallLibrary(try LibraryStore(url: URL(fileURLWithPath: dataDir).appendingPathComponent("library.sqlite")),
                                          seed: options.seed)
        if options.prepareOnly {
            print("prepared=\(prepared)")
            return
        }
    }
    var env = ProcessInfo.processInfo.environment
    env["CRATE_DATA_DIRECTORY"] = dataDir
    if options.mode == .local { env["CRATE_SOURCES_ENABLED"] = "localfiles" }
    let environment = env
    let mode = options.mode
    let makeRuntime = { () async throws -> CrateRuntime in
        let runtime = try await CrateRuntime.start(plugins: CratePlugins.list, environment: environment)
        if mode != .local {
            do { _ = try runtime.catalog.client() } catch {
                throw BenchFailure(description: "wall: no catalog (\(ErrorText.describe(error))); set CRATE_SOURCES_APPLECATALOG_BASE_URL, _TEAM_ID, _KEY_ID, _KEY_PATH, _USER_TOKEN")
            }
        }
        return runtime
    }
    let genre = options.genre
    let compose = { (feeds: FeedService) async throws -> FeedPage in
        if let genre { return try await feeds.genre(genre) }
        return await feeds.regenerateWall(reason: "crate-bench")
    }
    let clock = ContinuousClock()
    func timed(_ kind: String, _ index: Int, _ feeds: FeedService) async throws -> ComposeSample {
        let startDate = Date().timeIntervalSince1970
        let t0 = clock.now
        let page = try await compose(feeds)
        let ms = seconds(clock.now - t0) * 1000
        return ComposeSample(kind: kind, index: index, start: startDate, end: Date().timeIntervalSince1970, ms: ms, page: page)
    }

    var samples: [ComposeSample] = []
    var runtime: CrateRuntime?
    var feeds: FeedService?
    for i in 0..<options.cold {
        let fresh = try await makeRuntime()
        let service = fresh.feeds(seed: options.seed &+ UInt64(i))
        samples.append(try await timed("first", i, service))
        (runtime, feeds) = (fresh, service)
    }
    guard let runtime, let feeds else { return }
    for i in 0..<options.runs { samples.append(try await timed("later", i, feeds)) }

    let label = options.label ?? "\(options.mode.rawValue)\(genre.map { "-genre-\($0)" } ?? "")"
    if let path = options.timeline { try appendTimeline(samples, label: label, to: path) }
    printWallReport(samples, label: label, options: options, runtime: runtime, prepared: prepared)
}

func appendTimeline(_ samples: [ComposeSample], label: String, to path: String) throws {
    let rows = samples.map { s in
        [label, s.kind, String(s.index), String(format: "%.6f", s.start), String(format: "%.6f", s.end), String(format: "%.3f", s.ms),
         String(s.albums), String(s.count("local")), String(s.count("catalog")), String(s.page.failures.count)].joined(separator: "\t")
    }
    let text = Data((rows.joined(separator: "\n") + "\n").utf8)
    // Appended: feeds.sh collects every case's rows in one file.
    if !FileManager.default.fileExists(atPath: path), !FileManager.default.createFile(atPath: path, contents: nil) {
        throw BenchFailure(description: "cannot create \(path)")
    }
    guard let handle = FileHandle(forWritingAtPath: path) else { throw BenchFailure(description: "cannot write \(path)") }
    defer { try? handle.close() }
    try handle.seekToEnd()
    try handle.write(contentsOf: text)
}

func printWallReport(_ samples: [ComposeSample], label: String, options: WallOptions, runtime: CrateRuntime, prepared: String) {
    let counts = try? runtime.store.counts()
    let fmt = { (x: Double) in String(format: "%.3f", x) }
    var out = ["label=\(label)", "mode=\(options.mode.rawValue)", "feed=\(options.genre.map { "genre \($0)" } ?? "wall")",
               "data_dir=\(runtime.settings.dataDirectory.path)", "prepared=\(prepared)",
               "library_albums=\(counts?.albums ?? 0)", "library_tracks=\(counts?.tracks ?? 0)",
               "catalog_base_url=\(options.mode == .local ? "none" : runtime.settings.plugin("sources.applecatalog").string("base_url") ?? "default")",
               "requests_per_second=\(runtime.settings.plugin("sources.applecatalog").string("requests_per_second") ?? "20")",
               "cold=\(options.cold)", "runs=\(options.runs)", "seed=\(options.seed)"]
    for kind in ["first", "later"] {
        let mine = samples.filter { $0.kind == kind }
        let ms = mine.map(\.ms).sorted()
        out.append("\(kind)_ms_runs=\(mine.map { fmt($0.ms) }.joined(separator: ","))")
        out.append("\(kind)_median_ms=\(fmt(Timings.median(ms)))")
        out.append("\(kind)_p90_ms=\(fmt(percentile(ms, 0.9)))")
        out.append("\(kind)_min_ms=\(fmt(ms.first ?? 0))")
        out.append("\(kind)_max_ms=\(fmt(ms.last ?? 0))")
        out.append("\(kind)_albums_runs=\(mine.map { String($0.albums) }.joined(separator: ","))")
        out.append("\(kind)_albums_median=\(Int(Timings.median(mine.map { Double($0.albums) })))")
        out.append("\(kind)_local_median=\(Int(Timings.median(mine.map { Double($0.count("local")) })))")
        out.append("\(kind)_catalog_median=\(Int(Timings.median(mine.map { Double($0.count("catalog")) })))")
        out.append("\(kind)_failures_max=\(mine.map(\.page.failures.count).max() ?? 0)")
    }
    let all = samples.map(\.ms).sorted()
    out.append("all_median_ms=\(fmt(Timings.median(all)))")
    out.append("all_p90_ms=\(fmt(percentile(all, 0.9)))")
    if let last = samples.last?.page {
        out.append("last_contributions=\(last.contributions.map { "\($0.signal)/\($0.source):\($0.count)" }.joined(separator: " "))")
        out.append("last_explanation=\(last.explanation ?? "")")
    }
    // Every distinct failure of any compose: a benchmark that silently measures errors measures nothing.
    var failures: [String] = []
    for f in samples.flatMap(\.page.failures) {
        let text = "\(f.signal)/\(f.source): \(f.message)"
        if !failures.contains(text) { failures.append(text) }
    }
    out.append("failures=\(failures.joined(separator: " | "))")
    print(out.joined(separator: "\n"))
}
