import CrateCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The import progress line on standard error: a redrawn bar on a terminal (the console's status line: log
/// lines go above it), or (with `--progress` when not on one) a plain line at most twice a second, so logs and
/// pipes stay readable.
struct ProgressBar {
    enum Style { case bar, lines, none }
    let style: Style
    private var last = Date.distantPast

    init(forced: Bool, quiet: Bool) {
        if quiet { style = .none } else if isatty(STDERR_FILENO) == 1 { style = .bar } else { style = forced ? .lines : .none }
    }

    mutating func show(_ p: ImportProgress, final: Bool = false) {
        guard style != .none else { return }
        let now = Date()
        guard final || now.timeIntervalSince(last) >= (style == .bar ? 0.1 : 0.5) else { return }
        last = now
        let rate = p.elapsed > 0 ? Double(p.done) / p.elapsed : 0
        let eta = rate > 0 ? Double(max(0, p.total - p.done)) / rate : 0
        // A total of 0: the files are still being counted.
        let counts = p.total > 0
            ? "\(p.done)/\(p.total) files  \(Int(rate.rounded())) files/s  ETA \(clock(eta))"
            : "\(p.done) files  \(Int(rate.rounded())) files/s"
        switch style {
        case .bar:
            // Through the console, so a log line written meanwhile goes above the bar instead of through it.
            let width = 30
            let filled = p.total > 0 ? min(width, width * p.done / p.total) : 0
            let bar = "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] " + counts
            if final { CrateConsole.shared.endStatus(bar) } else { CrateConsole.shared.showStatus(bar) }
        case .lines:
            FileHandle.standardError.write(Data("progress: \(counts)\n".utf8))
        case .none: break
        }
    }
}
