/// How many arguments each command takes, checked before it runs and answered as MPD answers (src/command/
/// AllCommands.cxx): the table is also the list `commands` prints. nil: no upper bound.
extension MPDCommands {
    static let arity: [String: (min: Int, max: Int?)] = [
        "add": (1, 2), "addid": (1, 2), "albumart": (2, 2), "binarylimit": (1, 1), "clear": (0, 0), "close": (0, 0),
        "commands": (0, 0), "consume": (1, 1), "count": (1, nil), "crossfade": (1, 1), "currentsong": (0, 0),
        "decoders": (0, 0), "delete": (1, 1), "disableoutput": (1, 1), "enableoutput": (1, 1), "deleteid": (1, 1), "find": (1, nil), "findadd": (1, nil), "getvol": (0, 0),
        "idle": (0, nil), "list": (1, nil), "listall": (0, 1), "listallinfo": (0, 1), "listplaylist": (1, 2),
        "listplaylistinfo": (1, 2), "listplaylists": (0, 0), "load": (1, 3), "lsinfo": (0, 1), "move": (2, 2),
        "moveid": (2, 2), "next": (0, 0), "noidle": (0, 0), "notcommands": (0, 0), "outputs": (0, 0), "password": (1, 1),
        "pause": (0, 1), "ping": (0, 0), "play": (0, 1), "playid": (0, 1), "playlistadd": (2, 3), "playlistclear": (1, 1),
        "playlistdelete": (2, 2), "playlistid": (0, 1), "playlistinfo": (0, 1), "playlistmove": (3, 3), "plchanges": (1, 2),
        "plchangesposid": (1, 2), "previous": (0, 0), "random": (1, 1), "readpicture": (2, 2), "rename": (2, 2),
        "repeat": (1, 1), "replay_gain_mode": (1, 1), "replay_gain_status": (0, 0), "rescan": (0, 1), "rm": (1, 1),
        "save": (1, 2), "search": (1, nil), "searchadd": (1, nil),
        "seek": (2, 2), "seekcur": (1, 1), "seekid": (2, 2), "setvol": (1, 1), "shuffle": (0, 1), "single": (1, 1),
        "stats": (0, 0), "status": (0, 0), "sticker": (3, nil), "stop": (0, 0), "tagtypes": (0, nil), "toggleoutput": (1, 1), "update": (0, 1),
        "urlhandlers": (0, 0), "volume": (1, 1),
    ]

    /// MPD's wording: one count allowed, or too few, or too many.
    static func checkArity(_ name: String, _ count: Int) throws(MPDError) {
        guard let (least, most) = arity[name] else { throw MPDError(.unknown, "unknown command \"\(name)\"") }
        if least == most, count != least { throw MPDError(.argument, "wrong number of arguments for \"\(name)\"") }
        if count < least { throw MPDError(.argument, "too few arguments for \"\(name)\"") }
        if let most, count > most { throw MPDError(.argument, "too many arguments for \"\(name)\"") }
    }
}
