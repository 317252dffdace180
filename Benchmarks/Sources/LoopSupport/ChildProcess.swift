#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// The servers' and tools' processes: found on the PATH, spawned with
/// posix_spawn (Foundation's `Process` fails under valgrind, where the
/// profile executables run) with their standard streams on /dev/null, so
/// they hold no pipe of ours open, and waited for by PID.
///
/// Threading: stateless; call from any thread.
///
/// ```swift
/// if let openssl = ChildProcess.executable(named: "openssl"),
///    let pid = ChildProcess.spawn([openssl, "version"]) {
///     print(ChildProcess.wait(pid)) // Prints: "0"
/// }
/// ```
public enum ChildProcess {
    /// An executable named `name` on the PATH or in the usual folders;
    /// nil when absent.
    public static func executable(named name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let candidates = path.split(separator: ":").map { "\($0)/\(name)" }
            + ["/usr/sbin/\(name)", "/usr/local/sbin/\(name)", "/usr/bin/\(name)"]
        return candidates.first { access($0, X_OK) == 0 }
    }

    /// Starts `arguments[0]` with `arguments`; its PID, or nil when it did
    /// not start.
    public static func spawn(_ arguments: [String]) -> pid_t? {
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd in Int32(0)...2 {
            posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        var pid = pid_t()
        return posix_spawn(&pid, arguments[0], &actions, nil, &argv, environ) == 0 ? pid : nil
    }

    /// Waits for `pid` to end; its exit status.
    @discardableResult
    public static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return (status >> 8) & 0xFF
    }
}
