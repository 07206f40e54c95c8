import CrateCore
import CrateDomain
import CrateTestSupport
import Foundation
import Testing

extension AppSuites {
    /// `crate users` without a daemon (on the library) and with one (through its API), as a household sets itself up;
    /// no password or API key reaches a log.
    @Suite struct UserAppTests {
        @Test func usersAreAddedListedAndRemovedWithOrWithoutTheDaemon() throws {
            let app = try AppHarness()
            let first = try app.crate("users", "add", "alice", "--password-stdin", input: "alice's long secret\n")
            #expect(first.status == 0 && first.stdout.contains("Added alice (the owner) (admin)."), "\(first.stderr)")
            // Never from the command line.
            let refused = try app.crate("users", "add", "bob")
            #expect(refused.status != 0 && refused.stderr.contains("--password-stdin"), "\(refused)")
            let short = try app.crate("users", "add", "bob", "--password-stdin", input: "short\n")
            #expect(short.status != 0 && short.stderr.contains("at least 8 characters"), "\(short)")

            let d = try Daemon(app)
            let bob = try app.crate("users", "add", "bob", "--jukebox", "--password-stdin", env: d.env, input: "bob's long secret\n")
            #expect(bob.status == 0 && bob.stdout.contains("Added bob."), "\(bob.stderr)")
            let taken = try app.crate("users", "add", "BOB", "--password-stdin", env: d.env, input: "another secret\n")
            #expect(taken.status != 0 && taken.stderr.contains("exists already"), "\(taken)")
            let list = try app.crate("users", "list", "--json", env: d.env)
            let accounts = try decodeJSON([Account].self, list.stdout)
            #expect(accounts.map(\.name) == ["alice", "bob"] && accounts[0].isOwner && accounts[1].jukebox && !accounts[1].isAdmin)
            let key = try app.crate("users", "apikey", "bob", env: d.env)
            let apiKey = key.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(key.status == 0 && apiKey.count == 64, "\(key)")
            #expect(try app.crate("users", "passwd", "bob", "--password-stdin", env: d.env, input: "bob's newer secret\n").status == 0)
            let owner = try app.crate("users", "remove", "alice", env: d.env)
            #expect(owner.status != 0 && owner.stderr.contains("--owner"), "\(owner)")
            #expect(try app.crate("users", "remove", "bob", env: d.env).status == 0)
            #expect(try app.crate("users", env: d.env).stdout.contains("alice"))
            _ = d.stop()
            for secret in ["alice's long secret", "bob's long secret", "bob's newer secret", apiKey] {
                #expect(!d.text.contains(secret), "a secret reached the daemon's log")
            }
            #expect(d.text.contains("accounts: added 'bob'"))
        }
    }
}
