import CrateAudio
import CrateDomain
import CrateStorage
import Foundation
import Logging

/// Output trouble: a sound server that went away, a device unplugged, an output that was not there at start-up.
/// The player keeps its place, says what is wrong in status and events (`outputError`: which output, why, since
/// when), tries the output again with a growing pause (1 s, 2 s, 4 s … at most 30 s) and, when it works again,
/// resumes where the music stopped — unless the listener paused or stopped in the meantime.
extension PlayerService {
    static let retryDelays: [Double] = [1, 2, 4, 8, 15, 30]

    /// The engine reports that its output failed at `frame` of `item`.
    func outputFailed(_ reason: String, item: EngineItem?, frame: Int64) {
        let wasPlaying = state == .playing
        if let item, item.token == currentToken, let current {
            let rate = Double(format?.sampleRate ?? current.track.info.sampleRate)
            if rate > 0 { heldElapsed = Double(frame) / rate }
        }
        currentToken = nil
        // A failure during an outage (a resume that failed again) keeps the backoff growing.
        let attempt = outputError == nil ? 0 : outputAttempt + 1
        report(reason, resume: wasPlaying || outputError?.willResume == true, attempt: attempt)
        // Paused, not stopped: the place is kept and playing again starts there.
        setState(current != nil ? .paused : .stopped)
    }

    /// At start-up the configured output could not be reached: crated runs anyway and keeps trying it.
    func outputUnavailableAtStart(_ reason: String) {
        logger.error("output '\(outputName)' is unavailable: \(reason); crated runs and tries it again")
        report(reason, resume: false, attempt: 0)
    }

    private func report(_ reason: String, resume: Bool, attempt: Int) {
        let delay = Self.retryDelays[min(attempt, Self.retryDelays.count - 1)]
        let notice = OutputErrorNotice(output: outputName, reason: reason, since: outputError?.since ?? Date(),
                                       nextAttempt: Date().addingTimeInterval(delay), willResume: resume)
        let first = outputError == nil
        outputError = notice
        outputAttempt = attempt
        if first { logger.error("output '\(outputName)' failed: \(reason)") }
        publish(.player(.outputError(notice)))
        scheduleRetry(after: delay, attempt: attempt)
    }

    /// An output was switched on while none worked: the next attempt is now rather than after the backoff.
    func retryOutputSoon() {
        scheduleRetry(after: 0, attempt: outputAttempt)
    }

    /// The output's name in notices: the one output, or the enabled ones joined (`pulse+fifo`).
    var outputName: String {
        let enabled = outputs.enabledPlugins.map(\.name)
        return enabled.isEmpty ? outputs.names.joined(separator: "+") : enabled.joined(separator: "+")
    }

    private func scheduleRetry(after delay: Double, attempt: Int) {
        outputRetry?.cancel()
        let plugins = outputs.enabledPlugins
        outputRetry = Task { [weak self] in
            try? await Task.sleep(for: .seconds(delay))
            guard !Task.isCancelled else { return }
            // checkStatus may block (it connects); off the actor, at the player's priority. Any enabled output that
            // works is enough: the group plays through the ones that do.
            let status = await Task.detached(priority: Task.currentPriority) { () -> PluginStatus in
                var reasons: [String] = []
                for plugin in plugins {
                    switch plugin.checkStatus() {
                    case .available: return .available
                    case .unavailable(let reason): reasons.append(reason)
                    }
                }
                return reasons.isEmpty ? .available : .unavailable(reason: reasons.joined(separator: "; "))
            }.value
            guard !Task.isCancelled else { return }
            await self?.retried(status, attempt: attempt + 1)
        }
    }

    private func retried(_ status: PluginStatus, attempt: Int) {
        guard let trouble = outputError else { return }
        switch status {
        case .unavailable(let reason):
            report(reason, resume: trouble.willResume, attempt: attempt)
        case .available:
            outputError = nil
            outputRetry = nil
            let down = Date().timeIntervalSince(trouble.since)
            logger.notice("output '\(outputName)' is back after \(String(format: "%.0f", down)) s")
            publish(.player(.outputBack(output: outputName)))
            guard trouble.willResume, state == .paused, let current else { return }
            do {
                if let fresh = try store.queueEntry(id: current.id) { try start(fresh, at: heldElapsed) }
            } catch {
                logger.error("cannot resume after the output came back: \(ErrorText.describe(error))")
            }
        }
    }
}
