import ArgumentParser
import CrateCore
import Foundation

struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Scan folders (recursively, in place) and add their music to the library.")

    @OptionGroup var options: GlobalOptions
    @Argument(help: "Folders or files to import.") var paths: [String]
    @Flag(help: "Print the report as JSON.") var json = false

    func run() async throws {
        let runtime = try await options.runtime()
        var reports: [ImportReport] = []
        for path in paths {
            let report = try userFacing { try runtime.importFolder(path) }
            reports.append(report)
            if json { continue }
            let s = report.summary
            print("Imported \(report.root): \(s.tracksRead) tracks in \(s.folders) folders, "
                + "\(s.failures) failed, \(s.skipped) other files skipped (\(String(format: "%.1f", report.seconds)) s)")
            for f in report.failures { print("  failed: \(f.path): \(f.reason)") }
        }
        if json { try printJSON(reports) }
        let counts = try userFacing { try runtime.store.counts() }
        if !json { print("Library: \(counts.albums) albums, \(counts.tracks) tracks, \(counts.artists) artists") }
    }
}
