import CrateTestSupport
import Foundation
import Testing

/// Issue 16 item 18: `sources.applecatalog.requests_per_second` holds across processes. Each `crate` command starts a
/// catalog client of its own; with a window per process, commands run side by side sent the rate each.
@Suite(.serialized, .promptly) struct SharedRateTests {
    @Test func crateCommandsRunTogetherShareOneRateBudget() async throws {
        let keys = try TestKeys()
        defer { keys.remove() }
        let server = try await FakeAppleMusic.start(keys: keys)
        defer { Task { await server.stop() } }
        let home = try Fixture.temporaryDirectory("crate-catalog-rate")
        defer { try? FileManager.default.removeItem(at: home) }
        var env = CatalogAppTests.environment(home, server: server, keys: keys)
        let rate = 1
        env["CRATE_SOURCES_APPLECATALOG_REQUESTS_PER_SECOND"] = String(rate)
        let environment = env

        // Four commands at once, each with its own client (and its own storefront lookup): eight or more requests.
        let launched = ContinuousClock.now
        let runs = try await withThrowingTaskGroup(of: CatalogAppTests.Run.self) { group in
            for word in ["quartet", "trio", "duo", "solo"] {
                group.addTask { try await CatalogAppTests.crate(["catalog", "search", word], env: environment) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for run in runs { #expect(run.status == 0, "\(run.stdout)\(run.stderr)") }
        let arrivals = await server.log.seen.map(\.at).sorted()
        #expect(arrivals.count >= 8, "only \(arrivals.count) requests reached the server")
        // At one request a second the shared window grants one request each 1.1 s, the first no sooner than the
        // launch: the n-th grant, and so the last arrival, comes at least (n − 1) × 1.1 s after it. Only this side is
        // checked: a busy machine delays arrivals (a process opens its connection after its grant), never advances
        // them. Without the shared budget each command sends its two requests 1.1 s apart, all commands at once:
        // about 2 s after the launch for all eight.
        let last = (arrivals.last ?? launched) - launched
        let needed = Duration.seconds(1.1 * Double(arrivals.count - 1) * 0.99)
        let times = arrivals.map { ($0 - launched).formatted(.units(allowed: [.milliseconds])) }
        #expect(last >= needed, "\(arrivals.count) requests, the last \(last) after the launch at \(rate) per second; arrivals: \(times)")
        #expect(FileManager.default.fileExists(atPath: home.appendingPathComponent("data/applecatalog-rate").path))
    }
}
