import CDBus
import CrateDomain
import Foundation

/// A libdbus message handed between threads (libdbus messages are reference-counted and may be used from any
/// thread once `dbus_threads_init_default` has run).
struct DBusMessagePointer: @unchecked Sendable {
    let raw: OpaquePointer
}

/// Why there is no MPRIS front end: no session bus, or the name is someone else's.
enum SessionBusError: Error, CustomStringConvertible {
    case noBus(String)
    case nameTaken(String)

    var description: String {
        switch self {
        case .noBus(let why): "no session bus: \(why)"
        case .nameTaken(let name): "the bus name \(name) is taken (another crated, or another player named crate)"
        }
    }
}

/// crated's connection to the user's session bus: it owns one well-known name and one object path, and runs its own
/// loop on a thread of its own. The loop polls libdbus' sockets and a wake-up pipe, so a reply or signal sent from any
/// thread leaves at once, and the idle daemon does not wake up.
final class SessionBus: @unchecked Sendable {
    private let connection: OpaquePointer
    private let lock = NSLock()
    private var watches: [OpaquePointer] = []
    private var wake: (read: Int32, write: Int32) = (-1, -1)
    private var handler: (@Sendable (DBusMessagePointer) -> Void)?
    private var stopping = false

    private init(connection: OpaquePointer) {
        self.connection = connection
    }

    /// Connects to the session bus and takes `name`.
    static func connect(name: String) throws(SessionBusError) -> SessionBus {
        let environment = ProcessInfo.processInfo.environment
        // Without an address libdbus would try to autolaunch a bus of its own, which no desktop would listen to.
        let userBus = environment["XDG_RUNTIME_DIR"].map { $0 + "/bus" }
        guard environment["DBUS_SESSION_BUS_ADDRESS"]?.isEmpty == false || userBus.map(FileManager.default.fileExists) == true else {
            throw .noBus("DBUS_SESSION_BUS_ADDRESS is not set and there is no $XDG_RUNTIME_DIR/bus")
        }
        dbus_threads_init_default()
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        guard let connection = dbus_bus_get_private(DBUS_BUS_SESSION, &error) else {
            throw .noBus(error.message.map { String(cString: $0) } ?? "libdbus could not connect")
        }
        // libdbus would end the whole process when the bus goes away; crated goes on without MPRIS instead.
        dbus_connection_set_exit_on_disconnect(connection, 0)
        let reply = dbus_bus_request_name(connection, name, UInt32(DBUS_NAME_FLAG_DO_NOT_QUEUE), &error)
        guard reply == DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER || reply == DBUS_REQUEST_NAME_REPLY_ALREADY_OWNER else {
            let why = error.message.map { String(cString: $0) }
            dbus_connection_close(connection)
            dbus_connection_unref(connection)
            throw why.map { .noBus($0) } ?? .nameTaken(name)
        }
        return SessionBus(connection: connection)
    }

    /// Serves `path`: every method call to it goes to `handler` (on the bus thread; it must answer with `send`).
    func serve(path: String, handler: @escaping @Sendable (DBusMessagePointer) -> Void) throws {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        _ = fcntl(fds[0], F_SETFL, O_NONBLOCK)
        _ = fcntl(fds[1], F_SETFL, O_NONBLOCK)
        wake = (fds[0], fds[1])
        self.handler = handler
        let me = Unmanaged.passUnretained(self).toOpaque()
        dbus_connection_set_watch_functions(connection, { watch, data in
            guard let watch, let data else { return 0 }
            let bus = Unmanaged<SessionBus>.fromOpaque(data).takeUnretainedValue()
            bus.lock.withLock { bus.watches.append(watch) }
            return 1
        }, { watch, data in
            guard let watch, let data else { return }
            let bus = Unmanaged<SessionBus>.fromOpaque(data).takeUnretainedValue()
            bus.lock.withLock { bus.watches.removeAll { $0 == watch } }
        }, { _, data in
            // A watch turned on or off (libdbus does this when it has something to write): look again.
            guard let data else { return }
            Unmanaged<SessionBus>.fromOpaque(data).takeUnretainedValue().wakeUp()
        }, me, nil)
        dbus_connection_set_wakeup_main_function(connection, { data in
            guard let data else { return }
            Unmanaged<SessionBus>.fromOpaque(data).takeUnretainedValue().wakeUp()
        }, me, nil)
        var table = DBusObjectPathVTable(unregister_function: nil, message_function: { _, message, data in
            guard let message, let data else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
            guard dbus_message_get_type(message) == DBUS_MESSAGE_TYPE_METHOD_CALL else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
            let bus = Unmanaged<SessionBus>.fromOpaque(data).takeUnretainedValue()
            dbus_message_ref(message)
            bus.handler?(DBusMessagePointer(raw: message))
            return DBUS_HANDLER_RESULT_HANDLED
        }, dbus_internal_pad1: nil, dbus_internal_pad2: nil, dbus_internal_pad3: nil, dbus_internal_pad4: nil)
        guard dbus_connection_register_object_path(connection, path, &table, me) != 0 else {
            throw SessionBusError.noBus("could not register \(path)")
        }
        WorkerThread.start(name: "crate-dbus") { [self] in loop() }
    }

    /// Sends a message (a reply or a signal) and lets go of it.
    func send(_ message: OpaquePointer) {
        dbus_connection_send(connection, message, nil)
        dbus_message_unref(message)
        wakeUp()
    }

    func stop() {
        lock.withLock { stopping = true }
        wakeUp()
    }

    private func wakeUp() {
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
    }

    private func loop() {
        while true {
            while dbus_connection_dispatch(connection) == DBUS_DISPATCH_DATA_REMAINS {}
            guard dbus_connection_get_is_connected(connection) != 0 else { break }
            let (current, stop) = lock.withLock { (watches, stopping) }
            if stop { break }
            var fds = [pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            var polled: [OpaquePointer] = []
            for watch in current where dbus_watch_get_enabled(watch) != 0 {
                let flags = dbus_watch_get_flags(watch)
                var events: Int16 = 0
                if flags & DBUS_WATCH_READABLE.rawValue != 0 { events |= Int16(POLLIN) }
                if flags & DBUS_WATCH_WRITABLE.rawValue != 0 { events |= Int16(POLLOUT) }
                fds.append(pollfd(fd: dbus_watch_get_unix_fd(watch), events: events, revents: 0))
                polled.append(watch)
            }
            guard poll(&fds, nfds_t(fds.count), -1) >= 0 || errno == EINTR else { break }
            if fds[0].revents != 0 {
                var sink = [UInt8](repeating: 0, count: 64)
                while read(wake.read, &sink, sink.count) > 0 {}
            }
            for (i, watch) in polled.enumerated() where fds[i + 1].revents != 0 {
                // A watch handled earlier in this round may have removed this one.
                guard lock.withLock({ watches.contains(watch) }) else { continue }
                let got = fds[i + 1].revents
                var flags: UInt32 = 0
                if got & Int16(POLLIN) != 0 { flags |= DBUS_WATCH_READABLE.rawValue }
                if got & Int16(POLLOUT) != 0 { flags |= DBUS_WATCH_WRITABLE.rawValue }
                if got & Int16(POLLHUP) != 0 { flags |= DBUS_WATCH_HANGUP.rawValue }
                if got & Int16(POLLERR) != 0 { flags |= DBUS_WATCH_ERROR.rawValue }
                dbus_watch_handle(watch, flags)
            }
        }
        dbus_connection_close(connection)
    }
}

/// Reading a method call and answering it.
extension DBusMessagePointer {
    var interface: String { dbus_message_get_interface(raw).map { String(cString: $0) } ?? "" }
    var member: String { dbus_message_get_member(raw).map { String(cString: $0) } ?? "" }

    /// The call's arguments (variants unwrapped; types MPRIS never sends are left out).
    var arguments: [DBusValue] {
        var iter = DBusMessageIter()
        guard dbus_message_iter_init(raw, &iter) != 0 else { return [] }
        var values: [DBusValue] = []
        repeat {
            if let value = DBusValue.read(&iter) { values.append(value) }
        } while dbus_message_iter_next(&iter) != 0
        return values
    }

    /// A reply carrying `values`.
    func reply(_ values: [DBusValue] = [], variant: Bool = false) -> OpaquePointer? {
        guard let reply = dbus_message_new_method_return(raw) else { return nil }
        var iter = DBusMessageIter()
        dbus_message_iter_init_append(reply, &iter)
        for value in values {
            if variant { value.appendVariant(to: &iter) } else { value.append(to: &iter) }
        }
        return reply
    }

    /// An error reply: `name` (org.freedesktop.DBus.Error.…) and a message for the user.
    func error(_ name: String, _ text: String) -> OpaquePointer? {
        dbus_message_new_error(raw, name, text.replacingOccurrences(of: "\0", with: ""))
    }

    /// Lets go of the call once it is answered.
    func release() { dbus_message_unref(raw) }
}

/// A signal from `path`.
func dbusSignal(path: String, interface: String, name: String, _ values: [DBusValue]) -> OpaquePointer? {
    guard let signal = dbus_message_new_signal(path, interface, name) else { return nil }
    var iter = DBusMessageIter()
    dbus_message_iter_init_append(signal, &iter)
    for value in values { value.append(to: &iter) }
    return signal
}
