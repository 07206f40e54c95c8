import CrateClient
import CrateCore
import Foundation

/// Starts a library job on the daemon (import, rescan, loudness scan) and follows it to its end, showing its progress
/// as a local run would; `result` takes the job's outcome from the finished job.
func followDaemonJob<T>(_ daemon: DaemonClient, _ path: String, body: [String: Any]?, bar: inout ProgressBar,
                        result: (LibraryJobs.Job) -> T?) async throws -> T {
    var job = try await daemon.send("POST", path, body: body, as: JobAnswer.self).job
    // The daemon reports progress in its status; a CLI asking a few times a second is cheap.
    while let running = job, running.state == .running {
        if let p = running.progress { bar.show(p) }
        try await Task.sleep(for: .milliseconds(200))
        job = try await daemon.send("GET", "library/status", as: JobAnswer.self).job
    }
    guard let done = job else { throw CLIError("crated did not report the job") }
    if let p = done.progress { bar.show(p, final: true) }
    guard done.state == .done, let outcome = result(done) else {
        throw CLIError("\(done.kind) failed in crated: \(done.error ?? "no reason given")")
    }
    return outcome
}

/// The part of crated's job answers (and of `library/status`) the CLI follows.
private struct JobAnswer: Decodable {
    var job: LibraryJobs.Job?
}
