import ArgumentParser
import CrateAPI
import CrateCore
import CrateDomain
import Foundation

/// `crate users`: the household's accounts, for Subsonic apps on phones and desktops (Docs/SUBSONIC.md). Passwords
/// are read from standard input only, never from the command line (where `ps` and shell history would keep them).
struct Users: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "Accounts for Subsonic apps: list, add, remove, passwd, apikey.",
        discussion: """
            The owner (the first account, or the one added with --owner) is whose favorites, plays and playlists are \
            Crate's own: what the owner stars in an app shows on the web page and feeds the Crate Wall.
            """,
        subcommands: [UserList.self, UserAdd.self, UserRemove.self, UserPasswd.self, UserAPIKey.self], defaultSubcommand: UserList.self)
}

struct UserList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the accounts (the default).")
    @OptionGroup var options: GlobalOptions
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let accounts = try await userFacingAsync { try await options.runtime().accounts.accounts() }
        if json { return try printJSON(accounts) }
        if accounts.isEmpty { return print("No accounts; add one with `crate users add NAME --admin --password-stdin`.") }
        for a in accounts {
            let roles = [a.isOwner ? "owner" : nil, a.isAdmin ? "admin" : nil, a.jukebox ? "jukebox" : nil, a.hasAPIKey ? "api key" : nil]
                .compactMap { $0 }.joined(separator: ", ")
            print("\(pad(a.name, 20))\(roles)")
        }
    }
}

struct UserAdd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Add an account; its password is read from standard input.")
    @OptionGroup var options: GlobalOptions
    @Argument(help: "Its name (what the app's user field takes).") var name: String
    @Flag(help: "May manage accounts and start scans.") var admin = false
    @Flag(help: "Whose favorites and plays are Crate's own (the first account is the owner anyway).") var owner = false
    @Flag(help: "May drive crated's own player from an app (Subsonic's jukebox).") var jukebox = false
    @Flag(help: "Read the password from standard input (required: never on the command line).") var passwordStdin = false

    func run() async throws {
        let password = try readPassword(passwordStdin)
        let backend = try await options.backend()
        let account = try await userFacingAsync {
            try await backend.addUser(API.UserAdd(name: name, password: password, admin: admin, owner: owner, jukebox: jukebox))
        }
        print("Added \(account.name)\(account.isOwner ? " (the owner)" : "")\(account.isAdmin ? " (admin)" : "").")
    }
}

struct UserRemove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove an account with its stars, ratings and plays.")
    @OptionGroup var options: GlobalOptions
    @Argument(help: "The account's name.") var name: String

    func run() async throws {
        let backend = try await options.backend()
        try await userFacingAsync { try await backend.removeUser(name) }
        print("Removed \(name).")
    }
}

struct UserPasswd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "passwd", abstract: "Set an account's password, read from standard input.")
    @OptionGroup var options: GlobalOptions
    @Argument(help: "The account's name.") var name: String
    @Flag(help: "Read the password from standard input (required).") var passwordStdin = false

    func run() async throws {
        let password = try readPassword(passwordStdin)
        let backend = try await options.backend()
        try await userFacingAsync { try await backend.setPassword(name, API.UserPassword(password: password)) }
        print("New password set for \(name).")
    }
}

struct UserAPIKey: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apikey", abstract: "Make a new API key for an account (the old one stops working); it is printed once.")
    @OptionGroup var options: GlobalOptions
    @Argument(help: "The account's name.") var name: String

    func run() async throws {
        let backend = try await options.backend()
        print(try await userFacingAsync { try await backend.newAPIKey(name) })
    }
}

/// The first line of standard input, without its line break.
private func readPassword(_ fromStdin: Bool) throws -> String {
    guard fromStdin else { throw CLIError("give the password on standard input with --password-stdin (never on the command line)") }
    guard let line = readLine(strippingNewline: true), !line.isEmpty else { throw CLIError("no password on standard input") }
    return line
}
