import ArgumentParser
import CrateClient
import CrateAPI
import CrateCore
import CrateDomain
import Foundation

struct LoudnessCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "loudness",
        abstract: "Loudness normalisation: measure the library (EBU R128) and show the values the player uses.",
        discussion: """
            The player brings tracks to a common loudness (ReplayGain 2.0's -18 LUFS) by player.replaygain: off, track, \
            album, or auto (the default: the album gain while an album plays through in order, the track gain otherwise), \
            plus player.replaygain_preamp, with clipping prevention (player.replaygain_prevent_clipping). It uses what \
            `crate loudness scan` measured, else the files' own ReplayGain or Opus R128 tags. Files are never rewritten.
            """,
        subcommands: [LoudnessShow.self, LoudnessScan.self], defaultSubcommand: LoudnessShow.self)
}

struct LoudnessScan: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Measure integrated loudness and true peak per track and per album (libebur128, two tracks at a time).",
        discussion: """
            PATH is a library file or folder (the path a copy was imported from works too); 'all' or nothing: the whole \
            library. An album gets its album value when all its tracks are chosen (its folder, or all); --album widens a \
            choice to whole albums. Tracks measured before whose files did not change are left alone (--force measures \
            them again). With crated running the daemon scans, and this command follows its progress.
            """)

    @OptionGroup var options: GlobalOptions
    @Flag(help: "Measure the whole albums of the tracks chosen, so each gets an album value.") var album = false
    @Flag(help: "Measure again what is measured already.") var force = false
    @Argument(help: ArgumentHelp("A library file or folder, or 'all' (the default).", valueName: "PATH|all")) var target: String?
    @Flag(help: "Print the report as JSON.") var json = false
    @Flag(help: "Show progress on standard error even when it is not a terminal.") var progress = false
    @Flag(help: "No progress display.") var quiet = false

    func run() async throws {
        var paths: [String] = []
        if let target, target != "all" || FileManager.default.fileExists(atPath: target) {
            let url = URL(fileURLWithPath: target, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
                .standardizedFileURL
            paths = [url.path]
        }
        var bar = ProgressBar(forced: progress, quiet: quiet || json)
        let backend = try await options.backend()
        let outcome = try await userFacingAsync {
            try await backend.run(.loudness(API.LoudnessScan(paths: paths, album: album, force: force)), bar: &bar)
        }
        guard let report = outcome.loudness else { throw CLIError("the scan gave no report") }
        if json { return try printJSON(report) }
        print(Self.describe(report))
    }

    static func describe(_ r: LoudnessScanReport) -> String {
        let speed = r.seconds > 0 && r.audioSeconds > 0 ? String(format: ", %.0f× real time", r.audioSeconds / r.seconds) : ""
        var lines = ["loudness: \(counted(r.tracksMeasured, "track")) and \(counted(r.albumsMeasured, "album")) measured, "
            + "\(r.tracksCurrent) tracks and \(r.albumsCurrent) albums already current, \(r.failureCount) failed "
            + "(\(String(format: "%.1f", r.seconds)) s\(speed), \(r.workers) at a time)"]
        for a in r.albums { lines.append("  \(a.artist) — \(a.title): \(describe(a.measurement))") }
        if r.albumsMeasured > r.albums.count { lines.append("  … and \(r.albumsMeasured - r.albums.count) more albums") }
        if r.albumsPartial > 0 {
            lines.append("\(counted(r.albumsPartial, "album")) only partly chosen: track values only (--album measures whole albums)")
        }
        for f in r.failures { lines.append("  failed: \(f.path): \(f.reason)") }
        if r.failureCount > r.failures.count { lines.append("  … and \(r.failureCount - r.failures.count) more failures") }
        return lines.joined(separator: "\n")
    }

    /// "-9.3 LUFS, true peak -0.4 dBTP, gain -8.7 dB".
    static func describe(_ m: LoudnessMeasurement) -> String {
        guard let integrated = m.integrated, let gain = m.gain else { return "silent (no gain)" }
        return String(format: "%.1f LUFS, true peak %.1f dBTP, gain %+.1f dB", integrated, Loudness.decibels(m.truePeak), gain)
    }
}

struct LoudnessShow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "How much of the library is measured and the settings in force; with ALBUM, its values track by track.")

    @OptionGroup var options: GlobalOptions
    @Argument(help: "Album id, title, or words from 'artist title'.") var album: String?
    @Flag(help: "Print JSON.") var json = false

    struct Output: Encodable {
        var summary: LoudnessSummary
        var policy: LoudnessPolicy
    }

    func run() async throws {
        let runtime = try await options.runtime()
        let loudness = runtime.library.loudness
        guard let album else {
            let out = Output(summary: try userFacing { try loudness.summary() }, policy: runtime.settings.loudness)
            if json { return try printJSON(out) }
            let s = out.summary, p = out.policy
            print("""
                mode \(p.mode.rawValue), pre-amp \(String(format: "%+.1f", p.preamp)) dB, clipping prevention \(p.preventClipping ? "on" : "off") \
                (player.replaygain, player.replaygain_preamp, player.replaygain_prevent_clipping)
                tracks: \(s.tracks), measured \(s.tracksScanned)\(s.tracksStale > 0 ? ", \(s.tracksStale) changed since measured" : ""), \
                with gain tags \(s.tracksTagged)
                albums: \(s.albums), measured \(s.albumsScanned)
                """)
            if s.tracksScanned + s.tracksStale < s.tracks { print("`crate loudness scan` measures the rest") }
            return
        }
        let info = try userFacing { try loudness.album(id: try runtime.collection.resolveAlbum(album).id) }
        if json { return try printJSON(info) }
        print("\(info.artist) — \(info.title)")
        print("  album: " + (info.scan.map(LoudnessScan.describe) ?? "not measured as a whole"))
        for t in info.tracks {
            let number = [t.discNumber.map { "\($0)-" }, t.trackNumber.map { String(format: "%02d", $0) }].compactMap { $0 }.joined()
            var line = "  \(number.isEmpty ? "  " : number) \(t.title): "
            line += t.scan.map(LoudnessScan.describe) ?? (t.stale ? "changed since measured" : "not measured")
            if let tags = t.tags {
                let parts = [tags.trackGain.map { String(format: "track %+.2f dB", $0) },
                             tags.albumGain.map { String(format: "album %+.2f dB", $0) }].compactMap { $0 }
                if !parts.isEmpty { line += "; tags: " + parts.joined(separator: ", ") }
            }
            print(line)
        }
    }
}
