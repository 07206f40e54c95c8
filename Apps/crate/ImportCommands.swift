public import ArgumentParser
import CrateAPI
import CrateCore
import CrateClient
public import CrateDomain
import Foundation

extension ImportMode: ExpressibleByArgument {}

/// Options of the commands that import.
struct ImportOutput: ParsableArguments {
    @Flag(help: "Print the report as JSON.") var json = false
    @Flag(help: "Show progress on standard error even when it is not a terminal.") var progress = false
    @Flag(help: "No progress display.") var quiet = false

    /// Runs an import, rescan or retry on `backend` with the progress display (none when nothing would be shown) and
    /// prints its report.
    func run(_ job: LibraryJob, on backend: any CrateBackend) async throws {
        var bar = ProgressBar(forced: progress, quiet: quiet || json)
        let outcome = try await userFacingAsync { try await backend.run(job, bar: &bar) }
        guard let report = outcome.report else { throw CLIError("the job gave no report") }
        if json { return try printJSON(report) }
        print(Self.describe(report, warnings: outcome.warnings))
    }

    /// The report; `warnings` are the warnings logged during the run that the report does not already list (its
    /// failures), kept whole here since on a terminal they scrolled past the progress bar.
    static func describe(_ r: ImportReport, warnings: [String] = []) -> String {
        var lines = ["\(r.mode.rawValue): \(r.imported) imported, \(r.updated) updated, \(r.relinked) relinked, "
            + "\(r.unchanged) unchanged, \(r.duplicateCount) duplicates, \(r.failureCount) failed, \(r.nonAudio) other files "
            + "(\(String(format: "%.1f", r.seconds)) s)"]
        if r.originalsDeleted > 0 { lines.append("originals deleted after a verified copy: \(r.originalsDeleted)") }
        if r.originalsKept > 0 {
            lines.append("originals kept: \(r.originalsKept) (copy_then_delete needs permission: --delete-originals or import.delete_originals: true)")
        }
        for d in r.duplicates { lines.append("  duplicate: \(RawFileName.readable(d.path)) (same as \(RawFileName.readable(d.existingPath)))") }
        if r.duplicateCount > r.duplicates.count { lines.append("  … and \(r.duplicateCount - r.duplicates.count) more duplicates") }
        for f in r.failures { lines.append("  failed: \(RawFileName.readable(f.path)): \(f.reason)") }
        if r.failureCount > r.failures.count { lines.append("  … and \(r.failureCount - r.failures.count) more failures (crate import failures)") }
        let failed = Set(r.failures.map { "import: \($0.path): \($0.reason)" })
        let others = warnings.filter { !failed.contains($0) }
        if !others.isEmpty {
            lines.append("warnings (\(others.count)):")
            lines += others.map { "  \($0)" }
        }
        if let m = r.missing {
            let reasons = m.missing.filter { $0.value > 0 }.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
            lines.append("checked \(m.checked) library files: \(m.newlyMissing) newly missing, \(m.found) found again"
                + (reasons.isEmpty ? "" : "; missing: \(reasons.joined(separator: ", ")) (crate missing)"))
        }
        return lines.joined(separator: "\n")
    }
}

struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Add folders or files to the library (recursively; hidden files are skipped).",
        discussion: """
            Modes: copy (default) copies files into Crate's library folder; reference uses them where they are \
            (and `crate rescan` walks those folders again); copy_then_delete copies, then deletes each original \
            after its copy is verified and saved, but only with --delete-originals or import.delete_originals: true. \
            The mode chosen (by flag or the first import) is remembered.
            """,
        subcommands: [ImportFiles.self, Failures.self], defaultSubcommand: ImportFiles.self)
}

struct ImportFiles: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Import folders or files (the default).")

    @OptionGroup var options: GlobalOptions
    @Argument(help: "Folders or files to import.") var paths: [String]
    @Option(help: "reference, copy or copy_then_delete (remembered for later imports).") var mode: ImportMode?
    @Flag(help: "Allow copy_then_delete to delete originals in this run.") var deleteOriginals = false
    @OptionGroup var output: ImportOutput

    func run() async throws {
        let request = API.Import(paths: paths.map { URL(fileURLWithPath: $0).standardizedFileURL.path }, mode: mode,
                                 deleteOriginals: deleteOriginals ? true : nil)
        try await output.run(.importPaths(request), on: try await options.backend())
        if !output.json {
            let library = try await options.runtime().collection
            let counts = try userFacing { try library.counts() }
            print("Library: \(counted(counts.albums, "album")), \(counted(counts.tracks, "track")), \(counted(counts.artists, "artist"))")
        }
    }
}

struct Failures: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "failures", abstract: "List the files that could not be imported; retry or clear them.")

    @OptionGroup var options: GlobalOptions
    @Flag(help: "Import the failed files again.") var retry = false
    @Flag(help: "Forget the failures.") var clear = false
    @OptionGroup var output: ImportOutput

    func run() async throws {
        if retry { return try await output.run(.retryFailures, on: try await options.backend()) }
        if clear {
            let backend = try await options.backend()
            let n = try await userFacingAsync { try await backend.clearFailures() }
            return output.json ? try printJSON(["cleared": n]) : print("cleared \(n) failures")
        }
        let runtime = try await options.runtime()
        let failures = try userFacing { try runtime.collection.scanFailures() }
        if output.json { return try printJSON(failures) }
        if failures.isEmpty { return print("No failed imports.") }
        for f in failures { print("\(RawFileName.readable(f.path)): \(f.reason)") }
        print("\(failures.count) failed; `crate import failures --retry` tries them again, --clear forgets them")
    }
}

struct Rescan: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rescan",
        abstract: "Rescan the import folder and the folders imported by reference; flag missing files.",
        discussion: "Files whose size and modification time are unchanged are not opened.")

    @OptionGroup var options: GlobalOptions
    @OptionGroup var output: ImportOutput

    func run() async throws {
        try await output.run(.rescan, on: try await options.backend())
    }
}
