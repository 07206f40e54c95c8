/// An MPD protocol error: answered as `ACK [code@index] {command} message` and the command list stops there.
struct MPDError: Error {
    /// MPD's `enum ack` (src/protocol/Ack.hxx): clients show the message and some act on the code.
    enum Code: Int {
        case notList = 1, argument = 2, password = 3, permission = 4, unknown = 5
        case noExist = 50, playlistMax = 51, system = 52, playlistLoad = 53, updateAlready = 54, playerSync = 55, exist = 56
    }

    var code: Code
    var message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The error line for `command`, the `index`-th of its command list (0 outside one).
    func line(command: String, index: Int) -> String {
        "ACK [\(code.rawValue)@\(index)] {\(command)} \(message)\n"
    }
}
