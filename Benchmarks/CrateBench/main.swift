// crate-bench: Crate's benchmarks, run by Benchmarks/decode.sh and Benchmarks/player.sh next to the
// reference tools.
//
//   crate-bench decode FILE|URL [--repeat N] [--chunk-frames N] [--direct]
//   crate-bench queue [--entries N] [--tracks N] [--runs N] [--format markdown|kv]
//   crate-bench search --db PATH --queries FILE [--runs N] [--groups LIST] [--limit N] [--per-query FILE]
//
// `decode` opens FILE with the decoder registry Crate builds (CratePlugins.list.decoders(), default
// order), plays it through the daemon's PlaybackEngine into the null output, and prints `key=value`
// lines: the codec, frames decoded, wall seconds of each run and the best of N, and the realtime
// factor. Each timed run includes opening the file (what a play command pays too), not process
// start-up.
//
// `queue` times the play queue's operations on a real SQLite library in a temporary folder.
//
// `search` times LibraryStore.search (what the search box runs: parse, then every group, 5 each) for
// each line of FILE on an existing library database, in-process, and prints `key=value` lines per
// query class (the number of words): p50/p99 milliseconds and match counts. Run by Benchmarks/search.sh.

import CrateAudio
import CrateCore
import CrateDomain
import CratePlugins
import CrateStorage
import Foundation
import NullOutput

let usage = """
    usage: crate-bench decode FILE|URL [--repeat N] [--chunk-frames N] [--direct]
           crate-bench queue [--entries N] [--tracks N] [--runs N] [--format markdown|kv]
           crate-bench search --db PATH --queries FILE [--runs N] [--groups LIST] [--limit N] [--per-query FILE]
           crate-bench pace [--seconds N]

    decode   decode FILE (or an http(s) URL) through PlaybackEngine (the daemon's engine) into the null output, N times
             (default 1); prints key=value lines: codec, frames, seconds of each run, best_seconds,
             realtime_factor. --chunk-frames sets the engine's frames per read/write (default: Crate's own).
             --direct reads the decoder alone in a loop (no engine, no output): the difference is the engine's cost.
    queue    on a temporary SQLite library of --tracks tracks (default 300), replaces the queue with
             --entries entries (default 100000) and times inserts, a move, a removal, page reads, the
             count, reopening the store and a read at the end; each operation --runs times (default 5).
             Prints a Markdown table of milliseconds (median, min, max), or with --format kv
             `<operation>_ms=<median>` and `<operation>_runs_ms=<each run>` lines.
    search   opens the library database PATH (LibraryStore), runs every line of FILE once to warm up, then
             --runs times (default 5) each, timing `LibraryStore.search(SearchQuery.parse(line), text: line)`
             (--groups artists,albums,... and --limit, default all groups and 5, as the search box asks).
             Prints key=value lines per query class wordsN (N words): p50/p90/p99/max/mean ms, median
             totals per group, queries without matches. --per-query FILE writes one line a query:
             median ms, max ms, artists, albums, tracks totals, the query.
    pace     writes N seconds (default 5) of audio through the null and WAV file outputs, paced (their default) and
             with render: true; prints wall seconds and the ratio to N for each (1.0 = real time).
    """

struct UsageError: Error, CustomStringConvertible {
    var description: String
}

struct BenchFailure: Error, CustomStringConvertible {
    var description: String
}

/// Reads `--flag N` options with positive whole numbers.
struct ArgumentReader {
    var rest: ArraySlice<String>

    mutating func next() -> String? { rest.popFirst() }

    mutating func positiveInt(after flag: String) throws -> Int {
        guard let text = rest.popFirst() else { throw UsageError(description: "\(flag) needs a value") }
        guard let n = Int(text), n > 0 else {
            throw UsageError(description: "\(flag) needs a positive whole number, not '\(text)'")
        }
        return n
    }

    mutating func value(after flag: String) throws -> String {
        guard let text = rest.popFirst() else { throw UsageError(description: "\(flag) needs a value") }
        return text
    }
}

func seconds(_ d: Duration) -> Double {
    let c = d.components
    return Double(c.seconds) + Double(c.attoseconds) * 1e-18
}

// MARK: - decode

struct DecodeOptions {
    var path: String
    var repeatCount = 1
    var chunkFrames: Int?
    /// The decoder alone, read in a loop into one buffer: no engine, no output. The difference to the engine's time
    /// is the engine's own cost.
    var direct = false

    init(_ args: ArraySlice<String>) throws {
        var path: String?
        var reader = ArgumentReader(rest: args)
        while let arg = reader.next() {
            switch arg {
            case "--repeat", "-n": repeatCount = try reader.positiveInt(after: arg)
            case "--chunk-frames": chunkFrames = try reader.positiveInt(after: arg)
            case "--direct": direct = true
            case _ where arg.hasPrefix("-") && arg != "-": throw UsageError(description: "unknown option '\(arg)'")
            default:
                guard path == nil else { throw UsageError(description: "one FILE only; extra argument '\(arg)'") }
                path = arg
            }
        }
        guard let path else { throw UsageError(description: "decode needs a FILE") }
        self.path = path
    }
}

/// What one timed run of the engine produced.
struct RunResult {
    var info: StreamInfo
    var frames: Int64
    var seconds: Double
    var chunkFrames: Int
}

/// Plays `url` once through a fresh PlaybackEngine into a fresh null output, the way the daemon's
/// player drives it for a one-track queue: play, "nothing follows", then events until `.idle`.
func decodeOnce(_ url: URL, decoders: DecoderRegistry, inputs: InputRegistry, chunkFrames: Int?) async throws -> RunResult {
    let counter = FrameCounter()
    let plugin = NullOutputPlugin(counter: counter, render: true)
    let makeOutput: @Sendable () throws -> any AudioOutput = { try plugin.makeOutput() }
    let engine = if let chunkFrames {
        PlaybackEngine(decoders: decoders, inputs: inputs, chunkFrames: chunkFrames, makeOutput: makeOutput)
    } else {
        PlaybackEngine(decoders: decoders, inputs: inputs, makeOutput: makeOutput)
    }
    var info: StreamInfo?
    var problem: String?
    var finished = false
    let clock = ContinuousClock()
    let start = clock.now
    var end = start
    engine.play(EngineItem(token: 1, entryID: 1, trackID: 1, url: url))
    engine.setNext(nil, after: 1)
    events: for await event in engine.events {
        switch event {
        case let .started(_, streamInfo): info = streamInfo
        case .finished: finished = true
        case let .failed(_, reason): problem = reason  // names the file already
        case .decoding(let item): engine.setNext(nil, after: item.token)
        case .streamMetadata: break
        case .idle:
            end = clock.now
            break events
        case .outputFailed(let reason, _, _):
            // The engine stops without going idle after an output failure.
            problem = "the null output failed: \(reason)"
            break events
        }
    }
    engine.shutdown()
    if let problem { throw BenchFailure(description: problem) }
    guard finished, let info else { throw BenchFailure(description: "\(url.path): playback did not finish") }
    return RunResult(info: info, frames: counter.frames, seconds: seconds(end - start), chunkFrames: engine.chunkFrames)
}

/// The decoder read in a loop into one reused buffer, as fast as it goes: what decoding costs without the engine.
func decodeDirect(_ url: URL, decoders: DecoderRegistry, inputs: InputRegistry, chunkFrames: Int) throws -> RunResult {
    let clock = ContinuousClock()
    let start = clock.now
    let decoder = try decoders.open(stream: try inputs.open(url))
    var buffer = [Float](repeating: 0, count: chunkFrames * max(decoder.info.channels, 1))
    var frames: Int64 = 0
    while true {
        let n = try buffer.withUnsafeMutableBufferPointer { try decoder.read(into: $0) }
        if n == 0 { break }
        frames += Int64(n)
    }
    return RunResult(info: decoder.info, frames: frames, seconds: seconds(clock.now - start), chunkFrames: chunkFrames)
}

func decodeCommand(_ options: DecodeOptions) async throws {
    // A FILE, or an http(s) URL read through URLStream's input provider, as the daemon would.
    let url = options.path.hasPrefix("http://") || options.path.hasPrefix("https://")
        ? (URL(string: options.path) ?? URL(fileURLWithPath: options.path)) : URL(fileURLWithPath: options.path)
    // The registries exactly as CrateRuntime builds them with default settings.
    let decoders = try DecoderRegistry(CratePlugins.list.decoders())
    let inputs = InputRegistry(CratePlugins.list.inputs())
    var runs: [RunResult] = []
    for _ in 0..<options.repeatCount {
        let r = options.direct
            ? try decodeDirect(url, decoders: decoders, inputs: inputs, chunkFrames: options.chunkFrames ?? 4096)
            : try await decodeOnce(url, decoders: decoders, inputs: inputs, chunkFrames: options.chunkFrames)
        if let first = runs.first, first.frames != r.frames {
            throw BenchFailure(description: "\(url.path): runs disagree: \(first.frames) then \(r.frames) frames")
        }
        runs.append(r)
    }
    guard let first = runs.first, let best = runs.map(\.seconds).min() else { return }
    let info = first.info
    let audioSeconds = Double(first.frames) / Double(info.sampleRate)
    let lines: [(String, String)] = [
        ("file", url.isFileURL ? url.path : url.absoluteString),
        ("codec", info.codec),
        ("sample_rate", "\(info.sampleRate)"),
        ("channels", "\(info.channels)"),
        ("declared_frames", info.frames.map(String.init) ?? "unknown"),
        ("frames", "\(first.frames)"),
        ("audio_seconds", String(format: "%.3f", audioSeconds)),
        ("chunk_frames", "\(first.chunkFrames)"),
        ("repeat", "\(runs.count)"),
        ("run_seconds", runs.map { String(format: "%.6f", $0.seconds) }.joined(separator: ",")),
        ("best_seconds", String(format: "%.6f", best)),
        ("realtime_factor", best > 0 ? String(format: "%.1f", audioSeconds / best) : "inf"),
    ]
    print(lines.map { "\($0)=\($1)" }.joined(separator: "\n"))
}

// MARK: - queue

struct QueueOptions {
    enum Format: String { case markdown, kv }
    var entries = 100_000
    var tracks = 300
    var runs = 5
    var format = Format.markdown

    init(_ args: ArraySlice<String>) throws {
        var reader = ArgumentReader(rest: args)
        while let arg = reader.next() {
            switch arg {
            case "--entries": entries = try reader.positiveInt(after: arg)
            case "--tracks": tracks = try reader.positiveInt(after: arg)
            case "--runs", "-n": runs = try reader.positiveInt(after: arg)
            case "--format":
                let text = try reader.value(after: arg)
                guard let f = Format(rawValue: text) else {
                    throw UsageError(description: "--format is markdown or kv, not '\(text)'")
                }
                format = f
            default: throw UsageError(description: "unknown argument '\(arg)'")
            }
        }
        // The operations need a middle and a far page: at least a few entries.
        guard entries >= 4 else { throw UsageError(description: "--entries needs at least 4") }
    }
}

/// Wall times of each operation, in milliseconds, in the order the operations were first timed.
struct Timings {
    private(set) var order: [(key: String, label: String)] = []
    private(set) var samples: [String: [Double]] = [:]
    let clock = ContinuousClock()

    mutating func measure<T>(_ key: String, _ label: String, _ body: () throws -> T) rethrows -> T {
        let start = clock.now
        let result = try body()
        let ms = seconds(clock.now - start) * 1000
        if samples[key] == nil { order.append((key, label)) }
        samples[key, default: []].append(ms)
        return result
    }

    /// Adds a time measured some other way.
    mutating func record(_ key: String, _ label: String, _ ms: Double) {
        if samples[key] == nil { order.append((key, label)) }
        samples[key, default: []].append(ms)
    }

    static func median(_ values: [Double]) -> Double {
        let s = values.sorted()
        guard !s.isEmpty else { return 0 }
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }
}

/// Saves `count` tracks through `LibraryStore.save`, one ScanBatch per album folder of 12 tracks,
/// grouped by the real album rules; returns their ids.
func makeLibrary(_ store: LibraryStore, tracks count: Int) throws -> [Int64] {
    let perAlbum = 12
    var made = 0
    var album = 0
    while made < count {
        album += 1
        let artist = "Artist \(album % 17 + 1)"
        let folder = "/bench/music/\(artist)/Album \(album)"
        let n = min(perAlbum, count - made)
        let tags = (1...n).map { i in
            TrackTags(title: "Track \(i) of album \(album)", artist: artist, albumArtist: artist, album: "Album \(album)",
                      genre: "Benchmark", date: "\(1960 + album % 60)", trackNumber: i, trackTotal: n)
        }
        let keys = AlbumGrouping.keys(for: tags, folder: URL(fileURLWithPath: folder))
        let scanned = zip(tags, keys).enumerated().map { i, pair in
            let path = "\(folder)/\(String(format: "%02d", i + 1)) Track.flac"
            return ScannedTrack(ref: TrackRef(source: "file", id: path), path: path, size: 30_000_000,
                                modified: Date(timeIntervalSince1970: 1_700_000_000),
                                tags: pair.0, info: StreamInfo(codec: "flac", sampleRate: 44100, channels: 2, bitsPerSample: 16,
                                                               frames: 44100 * 240),
                                title: pair.0.title ?? "", artist: artist, album: pair.1)
        }
        try store.save(ScanBatch(folder: folder, tracks: scanned, failures: []))
        made += n
    }
    let ids = try store.albums().flatMap { try store.tracks(albumID: $0.id).map(\.id) }
    guard ids.count == count else {
        throw BenchFailure(description: "the library has \(ids.count) tracks, not the \(count) saved")
    }
    return ids
}

func check(_ condition: Bool, _ what: @autoclosure () -> String) throws {
    if !condition { throw BenchFailure(description: "queue benchmark: \(what())") }
}

func queueCommand(_ options: QueueOptions) throws {
    let fm = FileManager.default
    let dir = fm.temporaryDirectory.appendingPathComponent("crate-bench-queue-\(UUID().uuidString.prefix(8))", isDirectory: true)
    try fm.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? fm.removeItem(at: dir) }
    let dbURL = dir.appendingPathComponent("library.sqlite")
    var store: LibraryStore? = try LibraryStore(url: dbURL)
    guard let initial = store else { return }
    let trackIDs = try makeLibrary(initial, tracks: options.tracks)
    let albumCount = try initial.counts().albums
    let n = options.entries
    let queueTracks = (0..<n).map { trackIDs[$0 % trackIDs.count] }
    let one = trackIDs[trackIDs.count / 2]
    var t = Timings()

    for _ in 0..<options.runs {
        guard let s = store else { return }
        try s.clearQueue()
        try t.measure("replace", "replace the queue with \(n.formatted()) entries") {
            _ = try s.replaceQueue(with: queueTracks)
        }
        try t.measure("append", "append 1 entry") { _ = try s.insertIntoQueue([one]) }
        try t.measure("insert_first", "insert 1 entry at position 1") { _ = try s.insertIntoQueue([one], at: 1) }
        let middle = (n + 2) / 2
        try t.measure("insert_middle", "insert 1 entry at position \(middle.formatted()) (the middle)") {
            _ = try s.insertIntoQueue([one], at: middle)
        }
        var count = n + 3
        // As PlayerService.move does it: find the entry by index, check the target, move.
        let lastID = try t.measure("move_last_first", "move the last entry (\(count.formatted())) to position 1") { () throws -> Int64? in
            guard let last = try s.queueEntry(at: count) else { return nil }
            _ = try s.queueCount()
            try s.moveQueueEntry(last.id, to: 1)
            return last.id
        }
        try check(lastID != nil && (try s.queueEntry(at: 1))?.id == lastID, "the moved entry is not first")
        // As PlayerService.remove does it: find the entry by index, remove it.
        let removeAt = count / 2
        try t.measure("remove_middle", "remove the entry at \(removeAt.formatted()) (the middle)") {
            guard let entry = try s.queueEntry(at: removeAt) else { return }
            try s.removeQueueEntry(entry.id)
        }
        count -= 1
        let page = 500
        let first = try t.measure("page_first", "read page 1 (\(page) entries)") { try s.queue(offset: 0, limit: page) }
        try check(first.count == page && first.first?.index == 1, "page 1 has \(first.count) entries")
        let farOffset = min(50_000, count - page)
        let far = try t.measure("page_50000", "read the page at \((farOffset + 1).formatted()) (\(page) entries)") {
            try s.queue(offset: farOffset, limit: page)
        }
        try check(far.count == page && far.first?.index == farOffset + 1, "the far page starts at \(far.first?.index ?? 0)")
        let all = try t.measure("read_all", "read the whole queue (\(count.formatted()) entries)") { try s.queue(offset: 0, limit: count) }
        try check(all.count == count, "the whole queue has \(all.count) entries, not \(count)")
        let counted = try t.measure("count", "count the entries") { try s.queueCount() }
        try check(counted == count, "the count is \(counted), not \(count)")
        // Restart: let the old pool go, then open the file again (migrations checked, nothing to do).
        store = nil
        let reopened = try t.measure("reopen", "reopen the store (restart)") { try LibraryStore(url: dbURL) }
        store = reopened
        let target = min(100_000, count)
        let entry = try t.measure("entry_far", "after reopening, read the entry at \(target.formatted())") {
            try reopened.queueEntry(at: target)
        }
        try check(entry?.index == target, "no entry at \(target)")
        // Repeated inserts at one place halve the gap each time until the positions are renumbered
        // (about the 30th): the slowest of 40 is that renumbering of the whole queue.
        var scratch = Timings()
        for _ in 0..<40 {
            try scratch.measure("insert", "") { _ = try reopened.insertIntoQueue([one], at: 2) }
        }
        let slowest = scratch.samples["insert"]?.max() ?? 0
        t.record("insert_renumber", "40 inserts at position 2: the slowest (renumbers \((count + 40).formatted()) positions)", slowest)
        try t.measure("clear", "clear the queue (\((count + 40).formatted()) entries)") { try reopened.clearQueue() }
    }

    switch options.format {
    case .kv:
        var lines = ["entries=\(n)", "tracks=\(trackIDs.count)", "albums=\(albumCount)", "runs=\(options.runs)"]
        for (key, _) in t.order {
            let values = t.samples[key] ?? []
            lines.append("\(key)_ms=\(String(format: "%.3f", Timings.median(values)))")
            lines.append("\(key)_runs_ms=\(values.map { String(format: "%.3f", $0) }.joined(separator: ","))")
        }
        print(lines.joined(separator: "\n"))
    case .markdown:
        print("Crate queue on SQLite (LibraryStore, WAL, temporary folder): \(n.formatted()) entries over a library of "
            + "\(trackIDs.count) tracks in \(albumCount) albums; \(options.runs) runs, milliseconds.\n")
        print("| operation | median ms | min ms | max ms |")
        print("|---|---:|---:|---:|")
        for (key, label) in t.order {
            let values = t.samples[key] ?? []
            let f = { (x: Double) in String(format: "%.2f", x) }
            print("| \(label) | \(f(Timings.median(values))) | \(f(values.min() ?? 0)) | \(f(values.max() ?? 0)) |")
        }
    }
}

// MARK: - search

struct SearchOptions {
    var db: String
    var queries: String
    var runs = 5
    var groups = SearchGroup.allCases
    var limit = 5
    var perQuery: String?

    init(_ args: ArraySlice<String>) throws {
        var db: String?, queries: String?
        var reader = ArgumentReader(rest: args)
        while let arg = reader.next() {
            switch arg {
            case "--db": db = try reader.value(after: arg)
            case "--queries": queries = try reader.value(after: arg)
            case "--runs", "-n": runs = try reader.positiveInt(after: arg)
            case "--limit": limit = try reader.positiveInt(after: arg)
            case "--per-query": perQuery = try reader.value(after: arg)
            case "--groups":
                let text = try reader.value(after: arg)
                groups = try text.split(separator: ",").map { name in
                    guard let g = SearchGroup(rawValue: String(name)) else {
                        throw UsageError(description: "--groups takes \(SearchGroup.allCases.map(\.rawValue).joined(separator: ",")), not '\(name)'")
                    }
                    return g
                }
            default: throw UsageError(description: "unknown argument '\(arg)'")
            }
        }
        guard let db, let queries else { throw UsageError(description: "search needs --db PATH and --queries FILE") }
        self.db = db
        self.queries = queries
    }
}

/// Nearest-rank percentile of sorted values.
func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    return sorted[min(sorted.count - 1, max(0, Int((p * Double(sorted.count) - 1e-9).rounded(.up)) - 1))]
}

func searchCommand(_ options: SearchOptions) throws {
    guard FileManager.default.fileExists(atPath: options.db) else {
        throw BenchFailure(description: "no library database at \(options.db)")
    }
    let lines = try String(contentsOfFile: options.queries, encoding: .utf8)
        .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    guard !lines.isEmpty else { throw BenchFailure(description: "\(options.queries) holds no queries") }
    let clock = ContinuousClock()
    var start = clock.now
    let store = try LibraryStore(url: URL(fileURLWithPath: options.db))
    let openMs = seconds(clock.now - start) * 1000
    let counts = try store.counts()
    let run = { (line: String) throws -> SearchResults in
        try store.search(try SearchQuery.parse(line), text: line, groups: options.groups, limit: options.limit)
    }
    // Warm-up: every query once (page cache, SQLite's cache, lazily built statements); keeps the totals.
    start = clock.now
    let found = try lines.map(run)
    let warmupMs = seconds(clock.now - start) * 1000
    var samples = [[Double]](repeating: [], count: lines.count)
    var shown = 0  // items returned, so the work cannot be optimised away
    for _ in 0..<options.runs {
        for (i, line) in lines.enumerated() {
            let t0 = clock.now
            let results = try run(line)
            samples[i].append(seconds(clock.now - t0) * 1000)
            shown += results.groups.reduce(0) { $0 + $1.count }
        }
    }
    let total = { (r: SearchResults, g: SearchGroup) in r.group(g)?.total ?? 0 }
    var out = ["db=\(options.db)", "library_tracks=\(counts.tracks)", "library_albums=\(counts.albums)",
               "library_artists=\(counts.artists)", "queries=\(lines.count)", "runs=\(options.runs)",
               "groups=\(options.groups.map(\.rawValue).joined(separator: ","))", "limit=\(options.limit)",
               String(format: "open_ms=%.3f", openMs), String(format: "warmup_ms=%.3f", warmupMs), "items_shown=\(shown)"]
    let classes = Dictionary(grouping: lines.indices) { lines[$0].split(separator: " ").count }
    for words in classes.keys.sorted() {
        let idx = classes[words] ?? []
        let all = idx.flatMap { samples[$0] }.sorted()
        let key = "words\(words)"
        out.append("\(key)_queries=\(idx.count)")
        out.append("\(key)_samples=\(all.count)")
        for (name, p) in [("p50", 0.5), ("p90", 0.9), ("p99", 0.99)] {
            out.append(String(format: "\(key)_\(name)_ms=%.3f", percentile(all, p)))
        }
        out.append(String(format: "\(key)_max_ms=%.3f", all.last ?? 0))
        out.append(String(format: "\(key)_mean_ms=%.3f", all.reduce(0, +) / Double(max(1, all.count))))
        for g in SearchGroup.allCases {
            let totals = idx.map { Double(total(found[$0], g)) }.sorted()
            out.append(String(format: "\(key)_\(g.rawValue)_median=%.0f", percentile(totals, 0.5)))
            out.append(String(format: "\(key)_\(g.rawValue)_mean=%.1f", totals.reduce(0, +) / Double(max(1, totals.count))))
        }
        out.append("\(key)_empty=\(idx.filter { found[$0].groups.isEmpty }.count)")
    }
    print(out.joined(separator: "\n"))
    if let path = options.perQuery {
        let rows = lines.indices.map { i in
            let s = samples[i].sorted()
            return String(format: "%.3f\t%.3f", percentile(s, 0.5), s.last ?? 0)
                + "\t\(total(found[i], .artists))\t\(total(found[i], .albums))\t\(total(found[i], .tracks))\t\(lines[i])"
        }
        try (rows.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    }
}

// MARK: - main

func writeError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

func main(_ args: [String]) async -> Int32 {
    let rest = args.dropFirst()
    guard let command = rest.first else {
        writeError(usage)
        return 2
    }
    do {
        switch command {
        case "decode":
            try await decodeCommand(DecodeOptions(rest.dropFirst()))
        case "queue":
            try queueCommand(QueueOptions(rest.dropFirst()))
        case "search":
            try searchCommand(SearchOptions(rest.dropFirst()))
        case "wall":
            try await wallCommand(WallOptions(rest.dropFirst()))
        case "pace":
            try paceCommand(rest.dropFirst())
        case "help", "-h", "--help":
            print(usage)
        default:
            throw UsageError(description: "unknown command '\(command)'")
        }
        return 0
    } catch let error as UsageError {
        writeError("crate-bench: \(error)\n\n\(usage)")
        return 2
    } catch {
        writeError("crate-bench: \(ErrorText.describe(error))")
        return 1
    }
}

exit(await main(CommandLine.arguments))
