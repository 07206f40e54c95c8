import CrateCore
import CrateDomain
import CrateTestSupport
import Crypto
import Foundation
import Testing

/// Accounts on a real library file: adding, the owner rule, the three ways of signing in, the back-off after wrong
/// passwords, sealed passwords (the database file never holds one in clear) and each person's stars and plays.
@Suite struct AccountTests {
    let fixture: LibraryFixture
    let runtime: CrateRuntime

    init() throws {
        fixture = try LibraryFixture("crate-accounts")
        try fixture.album("Band", "Record", tracks: 3)
        runtime = try fixture.runtime()
        _ = try runtime.library.importPaths([fixture.music.path], mode: .reference)
    }

    var accounts: AccountService { runtime.accounts }

    @Test func theFirstAccountIsTheOwnerAndAnAdmin() throws {
        let alice = try accounts.add(name: "alice", password: "correct horse")
        let bob = try accounts.add(name: "bob", password: "battery staple")
        #expect(alice.isOwner && alice.isAdmin && alice.jukebox)
        #expect(!bob.isOwner && !bob.isAdmin && !bob.jukebox)
        #expect(try accounts.owner()?.name == "alice")
        #expect(throws: AccountError.nameTaken("Alice")) { try accounts.add(name: "Alice", password: "whatever123") }
        #expect(throws: AccountError.invalidPassword(why: "it must be at least 8 characters")) { try accounts.add(name: "carol", password: "short") }
        // The owner holds Crate's own favorites: another owner first.
        #expect(throws: AccountError.ownerCannotBeRemoved("alice")) { try accounts.remove(name: "alice") }
        _ = try accounts.add(name: "carol", password: "carol's secret", owner: true)
        #expect(try accounts.owner()?.name == "carol")
        try accounts.remove(name: "alice")
        #expect(try accounts.accounts().map(\.name) == ["bob", "carol"])
        #expect(throws: AccountError.noSuchAccount("alice")) { try accounts.remove(name: "alice") }
    }

    @Test func passwordTokenAndAPIKeySignIn() throws {
        _ = try accounts.add(name: "alice", password: "sesame open")
        #expect(try accounts.authenticate(.password(user: "alice", password: "sesame open"), from: "10.0.0.2").name == "alice")
        // Names are matched without case, as Subsonic servers do.
        #expect(try accounts.authenticate(.password(user: "ALICE", password: "sesame open"), from: "10.0.0.2").name == "alice")
        let salt = "c19b2d"
        let token = Insecure.MD5.hash(data: Data(("sesame open" + salt).utf8)).map { String(format: "%02x", $0) }.joined()
        #expect(try accounts.authenticate(.token(user: "alice", token: token, salt: salt), from: "10.0.0.2").name == "alice")
        #expect(throws: AccountError.wrongCredentials) { try accounts.authenticate(.token(user: "alice", token: token, salt: "other"), from: "10.0.0.3") }
        #expect(throws: AccountError.wrongCredentials) { try accounts.authenticate(.password(user: "nobody", password: "sesame open"), from: "10.0.0.4") }
        let key = try accounts.newAPIKey(name: "alice")
        #expect(try accounts.authenticate(.apiKey(key), from: "10.0.0.2").name == "alice")
        // A new key revokes the old one.
        let newer = try accounts.newAPIKey(name: "alice")
        #expect(throws: AccountError.unknownAPIKey) { try accounts.authenticate(.apiKey(key), from: "10.0.0.5") }
        #expect(try accounts.authenticate(.apiKey(newer), from: "10.0.0.2").hasAPIKey)
        try accounts.setPassword(name: "alice", password: "a new secret")
        #expect(throws: AccountError.wrongCredentials) { try accounts.authenticate(.password(user: "alice", password: "sesame open"), from: "10.0.0.6") }
        #expect(try accounts.authenticate(.password(user: "alice", password: "a new secret"), from: "10.0.0.6").name == "alice")
    }

    @Test func wrongPasswordsAreSlowedDownThenTheRightOneWorks() throws {
        _ = try accounts.add(name: "alice", password: "right password")
        for _ in 0..<AccountService.freeFailures {
            #expect(throws: AccountError.wrongCredentials) { try accounts.authenticate(.password(user: "alice", password: "guess"), from: "10.0.0.9") }
        }
        // Now even the right password is refused unchecked until the wait is over…
        let refused = #expect(throws: AccountError.self) { try accounts.authenticate(.password(user: "alice", password: "right password"), from: "10.0.0.9") }
        guard case .slowDown(let seconds)? = refused else { Issue.record("expected a slow-down, got \(String(describing: refused))"); return }
        #expect(seconds > 0 && seconds <= 0.5)
        // …another address is not held up by it…
        #expect(try accounts.authenticate(.password(user: "alice", password: "right password"), from: "10.0.0.10").name == "alice")
        // …and once the wait is over the right one works again.
        try waitUntil("the back-off to end", seconds: 10) {
            (try? accounts.authenticate(.password(user: "alice", password: "right password"), from: "10.0.0.9")) != nil
        }
    }

    @Test func passwordsAreSealedWithAKeyOnlyTheOwnerReads() throws {
        _ = try accounts.add(name: "alice", password: "plain text must not be stored")
        let database = try Data(contentsOf: runtime.settings.databaseURL)
        let wal = (try? Data(contentsOf: URL(fileURLWithPath: runtime.settings.databaseURL.path + "-wal"))) ?? Data()
        #expect(database.range(of: Data("plain text must not be stored".utf8)) == nil)
        #expect(wal.range(of: Data("plain text must not be stored".utf8)) == nil)
        let key = runtime.settings.dataDirectory.appendingPathComponent("account.key")
        let mode = try FileManager.default.attributesOfItem(atPath: key.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try Data(contentsOf: key).count == 32)
    }

    @Test func theOwnersStarsAreCratesFavoritesAndOthersAreTheirOwn() throws {
        let owner = try accounts.add(name: "alice", password: "alice's secret")
        let bob = try accounts.add(name: "bob", password: "bob's secret")
        let album = try #require(runtime.collection.albums().first)
        let tracks = try runtime.collection.tracks(albumID: album.id)
        let listening = runtime.listening
        try listening.star(.album, id: album.id, for: owner)
        try listening.star(.track, id: tracks[0].id, for: bob)
        // The owner's star is Crate's favorite (the web page's Favorites shelf); bob's is bob's alone.
        #expect(try runtime.collection.favorites().albums.map(\.id) == [album.id])
        #expect(try runtime.collection.favoriteTracks().isEmpty)
        #expect(try listening.starred(for: owner).albums.map(\.id) == [album.id])
        #expect(try listening.starred(for: bob).tracks.map(\.id) == [tracks[0].id])
        #expect(try listening.starred(for: bob).albums.isEmpty)
        #expect(try listening.starDates(for: bob)[Starred.key(.track, tracks[0].id)] != nil)
        try listening.unstar(.album, id: album.id, for: owner)
        #expect(try runtime.collection.favorites().albums.isEmpty)
        // The owner's one star on an album is Crate's dislike; moving off it takes the dislike back.
        try listening.setRating(.album, id: album.id, rating: 1, for: owner)
        #expect(try runtime.collection.opinion(.album, id: album.id) == .dislike)
        try listening.setRating(.album, id: album.id, rating: 4, for: owner)
        #expect(try runtime.collection.opinion(.album, id: album.id) == nil)
        try listening.setRating(.album, id: album.id, rating: 1, for: bob)
        #expect(try runtime.collection.opinion(.album, id: album.id) == nil)
        #expect(try listening.ratings(for: bob)[Starred.key(.album, album.id)] == 1)
        // Plays: the owner's count in the library, bob's in his own.
        try listening.scrobble(trackID: tracks[1].id, for: owner)
        try listening.scrobble(trackID: tracks[1].id, for: bob)
        try listening.scrobble(trackID: tracks[1].id, for: bob)
        try listening.scrobble(trackID: tracks[2].id, submission: false, for: bob)
        #expect(try runtime.collection.track(id: tracks[1].id)?.playCount == 1)
        #expect(try listening.playCounts(for: bob) == [tracks[1].id: 2])
        // Removing bob removes what was his.
        try accounts.remove(name: "bob")
        let again = try accounts.add(name: "bob", password: "bob's secret")
        #expect(try listening.playCounts(for: again).isEmpty && listening.starred(for: again).tracks.isEmpty)
    }
}

/// Playlists and play queues per account: the owner's are Crate's own; everyone else's stay out of Crate's lists;
/// private until public; only the owner of a playlist changes it.
@Suite struct AccountPlaylistTests {
    @Test func eachAccountHasItsOwnPlaylistsSharedWhenPublic() throws {
        let fixture = try LibraryFixture("crate-account-playlists")
        try fixture.album("Band", "Record", tracks: 3)
        let runtime = try fixture.runtime()
        _ = try runtime.library.importPaths([fixture.music.path], mode: .reference)
        let alice = try runtime.accounts.add(name: "alice", password: "alice's secret")
        let bob = try runtime.accounts.add(name: "bob", password: "bob's long secret")
        let tracks = try runtime.collection.tracks(albumID: try #require(try runtime.collection.albums().first).id).map(\.id)
        let playlists = runtime.accountPlaylists

        // The owner's playlist is Crate's own (the web page and MPD list it); bob's is not.
        let mine = try playlists.create(name: "Road trip", trackIDs: tracks, for: alice)
        #expect(mine.home == .crate)
        #expect(try runtime.collection.playlists().map(\.name) == ["Road trip"])
        let his = try playlists.create(name: "Road trip", trackIDs: [tracks[2], tracks[0]], for: bob)
        #expect(his.home == .account)
        #expect(try runtime.collection.playlists().count == 1)
        // Private until public.
        #expect(try playlists.playlists(for: bob).map(\.name) == ["Road trip"])
        #expect(try playlists.playlists(for: bob).first?.owner == "bob")
        #expect(throws: AccountError.noSuchPlaylist("\(mine.id)")) { try playlists.playlist(mine, for: bob) }
        #expect(throws: AccountError.noSuchPlaylist("\(his.id)")) { try playlists.playlist(his, for: alice) }
        try playlists.update(his, comment: "for the car", isPublic: true, for: bob)
        let seen = try playlists.playlist(his, for: alice)
        #expect(seen.playlist.isPublic && seen.playlist.comment == "for the car" && seen.tracks.map(\.id) == [tracks[2], tracks[0]])
        // Only its owner changes it.
        #expect(throws: AccountError.notYours("Road trip")) { try playlists.update(his, name: "Mine now", for: alice) }
        #expect(throws: AccountError.notYours("Road trip")) { try playlists.delete(his, for: alice) }
        // Edits: remove the first entry (0-based), append one; the owner's edits go through Crate's collection.
        try playlists.update(his, name: "Drive", adding: [tracks[1]], removing: [0], for: bob)
        #expect(try playlists.playlist(his, for: bob).tracks.map(\.id) == [tracks[0], tracks[1]])
        try playlists.update(mine, removing: [1], for: alice)
        #expect(try runtime.collection.playlistEntries(id: mine.id).map(\.track.id) == [tracks[0], tracks[2]])
        try playlists.replaceTracks(mine, with: [tracks[1]], for: alice)
        #expect(try runtime.collection.playlistEntries(id: mine.id).map(\.track.id) == [tracks[1]])
        try playlists.delete(his, for: bob)
        #expect(try playlists.playlists(for: bob).isEmpty)

        // Play queues: each account's own; an empty save clears it.
        try playlists.savePlayQueue(PlayQueue(trackIDs: tracks, current: tracks[1], positionMs: 42_000, changedAt: Date(), changedBy: "DSub"), for: bob)
        let queue = try #require(try playlists.playQueue(for: bob))
        #expect(queue.trackIDs == tracks && queue.current == tracks[1] && queue.positionMs == 42_000 && queue.changedBy == "DSub")
        #expect(try playlists.playQueue(for: alice) == nil)
        try playlists.savePlayQueue(PlayQueue(trackIDs: [], current: nil, positionMs: 0, changedAt: Date(), changedBy: "DSub"), for: bob)
        #expect(try playlists.playQueue(for: bob) == nil)
    }
}
