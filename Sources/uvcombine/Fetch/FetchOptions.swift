import Foundation
import UVCombineHTTPCore

/// `uvcombine fetch`'s command line, read the way curl reads its own so
/// that scripts can swap `curl` for `uvcombine fetch`: options before or
/// after the URL, short options clustered (`-sSL`, `-sSo file`), a short
/// option's value attached or separate (`-ofile`, `-o file`), long options
/// as `--name value` or `--name=value`, booleans negated with `--no-`
/// (`--no-location`), and `--` ending the options.
///
/// An option curl does not know fails with status 2 (curl's "option
/// --x: is unknown"); an option curl knows that this tool does not
/// implement fails with status 4 (curl's "a feature ... not built in"),
/// so a script learns the difference.
struct FetchOptions {
    /// One `-d`-family argument: how curl reads it.
    enum DataKind {
        /// `-d`/`--data`/`--data-ascii`: `@file` is read with CR and LF removed.
        case ascii
        /// `--data-binary`: `@file` is read as is.
        case binary
        /// `--data-raw`: no `@` handling.
        case raw
        /// `--data-urlencode`: `content`, `name=content`, `@file`, `name@file`.
        case urlencode
    }

    /// A header argument (`-H`): add, remove a default (`Name:`), or send
    /// empty (`Name;`).
    enum HeaderChange {
        case add(name: String, value: String)
        case remove(name: String)
    }

    /// The URLs, fetched one after the other as curl does.
    var urls: [String] = []
    /// `-o FILE` and `-O` (nil) in order: the n-th goes with the n-th
    /// URL; URLs without one write to standard output.
    var outputs: [String?] = []
    /// `--remote-name-all`: every URL without `-o` gets `-O`.
    var remoteNameAll = false
    /// `--output-dir DIR`: where `-o` and `-O` files go (relative names).
    var outputDirectory: String?
    /// `--create-dirs`: create the output file's missing directories.
    var createDirectories = false
    /// `-D FILE`: every response head, as received, to FILE (`-` is
    /// standard output).
    var dumpHeader: String?
    /// `-r RANGE`: `Range: bytes=RANGE`.
    var range: String?
    var includeHead = false
    var headOnly = false
    var method: String?
    var headers: [HeaderChange] = []
    var userAgent: String?
    var referer: String?
    var user: String?
    var data: [(kind: DataKind, value: String)] = []
    var getWithData = false
    /// `--path-as-is`: keep `/./` and `/../` in the URL's path.
    var pathAsIs = false
    /// `--proto`: the schemes allowed at all (curl's default: all).
    var protocols = FetchOptions.allProtocols
    /// `--proto-redir`: the schemes a redirect may go to (curl 7.88's
    /// default: http, https, ftp, ftps).
    var redirectProtocols: Set<String> = ["http", "https", "ftp", "ftps"]

    /// curl's protocol names, for `all`.
    static let allProtocols: Set<String> = [
        "dict", "file", "ftp", "ftps", "gopher", "gophers", "http", "https", "imap", "imaps", "ldap", "ldaps", "mqtt",
        "pop3", "pop3s", "rtmp", "rtsp", "scp", "sftp", "smb", "smbs", "smtp", "smtps", "telnet", "tftp",
    ]

    /// curl's `--proto` syntax: comma-separated names (or `all`), each
    /// adding (`+`, the default), removing (`-`) or being the only one
    /// (`=`), applied from left to right to `start`.
    static func protocols(_ list: String, from start: Set<String>) -> Set<String> {
        var result = start
        for token in list.split(separator: ",") {
            var name = Substring(token.trimmingCharacters(in: .whitespaces))
            var mode: Character = "+"
            while let first = name.first, "=+-".contains(first) {
                mode = first
                name = name.dropFirst()
            }
            let names: Set<String> = name.lowercased() == "all" ? allProtocols : [name.lowercased()]
            switch mode {
            case "=": result = names
            case "-": result.subtract(names)
            default: result.formUnion(names)
            }
        }
        return result
    }
    /// `--max-filesize N`: refuse a body whose `Content-Length` is larger
    /// than N bytes (exit 63); curl 7.88 does not check bodies without one.
    var maximumFileSize: Int?
    /// `--fail-early`: stop at the first URL that fails.
    var failEarly = false
    /// `--remove-on-error`: delete the output file when the transfer fails.
    var removeOnError = false
    /// `-R`: give the output file the response's `Last-Modified` time.
    var remoteTime = false
    /// `--oauth2-bearer TOKEN`: `Authorization: Bearer TOKEN`.
    var bearer: String?
    /// `--tlsv1.3`: TLS 1.3 at least (TLS 1.2 is the floor anyway).
    var tlsVersion13 = false
    /// `--json`: the data is JSON (`Content-Type` and `Accept` say so).
    var json = false
    /// `-F name=value` (`@file`, `<file`, `;type=`, `;filename=`) and
    /// `--form-string name=value` (literal): a multipart/form-data POST.
    var form: [(spec: String, literal: Bool)] = []
    /// `-b 'name=value; ...'`: sent in the `Cookie` field, after the
    /// cookie engine's (as curl's `CURLOPT_COOKIE`).
    var cookie: String?
    /// `-b FILE` (a value without `=`): jars loaded into the cookie
    /// engine, which they switch on (`-b ''`: on, nothing loaded; a file
    /// that cannot be read loads nothing, as with curl).
    var cookieFiles: [String] = []
    /// `-c FILE`, `--cookie-jar FILE`: where the cookie engine (switched on
    /// by it) is written when the run ends, in curl's Netscape format
    /// (`-`: standard output).
    var cookieJar: String?
    /// `--digest`: `-u`'s credentials answer the server's Digest challenge
    /// (sent after a `401`, not before); `--basic` (the default): sent
    /// with the first request.
    var digest = false
    /// Whether the cookie engine runs: only when asked, as with curl.
    var usesCookieEngine: Bool { !cookieFiles.isEmpty || cookieJar != nil }
    var uploadFile: String?
    var followRedirects = false
    var maximumRedirects = 50
    var locationTrusted = false
    var maxTime: Double?
    var connectTimeout: Double?
    var retries = 0
    var retryDelay: Double = 0
    var retryMaxTime: Double = 0
    var retryConnectionRefused = false
    var retryAllErrors = false
    var writeOut: String?
    var failOnHTTPError = false
    var failWithBody = false
    var silent = false
    var showError = false
    var verbose = false
    var compressed = false
    /// `--http1.1`, `--http2`, `--http2-prior-knowledge` (the last one
    /// given wins, as in curl); curl's default: HTTP/2 where TLS's ALPN
    /// agrees.
    var httpVersion = HTTPVersionPreference.automatic
    /// `-x URL`: the proxy for every URL (`""`: none, not even the
    /// environment's); nil: the environment's (`http_proxy`, ...).
    var proxy: String?
    /// `-U user:password`: the proxy's credentials (those in `-x`'s URL
    /// win, as with curl).
    var proxyUser: String?
    /// `--noproxy LIST`: hosts reached directly, instead of `no_proxy`.
    var noProxy: String?
    var unixSocket: String?
    var caCertificates: String?
    var insecure = false
    var help = false
    var version = false
    /// The first option seen that curl has but this tool does not
    /// implement (exit status 4 when the command runs).
    var unsupported: String?
    /// Warnings from reading the options (printed unless `-s`).
    var warnings: [String] = []

    /// A command-line mistake; exit status 2 (curl's "option ...").
    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    static let usage = """
        usage: uvcombine fetch [options] URL...    (a URL without a scheme is http)

        A drop-in for the common curl command lines: the same options print the
        same bytes on standard output and exit with the same status as curl.
        The response streams through UVURLSession's bytesPublisher, so -o never
        holds the whole body in memory.

          -o, --output FILE        write the body to FILE (- is standard output)
          -O, --remote-name        write the body to a file named like the URL's last
                                   path segment, in the current directory
              --remote-name-all    -O for every URL
              --output-dir DIR     put -o and -O files in DIR
              --create-dirs        create the missing directories of -o's path
          -D, --dump-header FILE   write every response head, as received, to FILE (- is
                                   standard output)
          -r, --range RANGE        ask for the bytes RANGE (Range: bytes=RANGE)
          -i, --include            write the status line and header fields, as received,
                                   before the body (every response's, with -L)
          -I, --head               send HEAD and write the header fields only
          -X, --request METHOD     use METHOD for every request (also after redirects)
          -H, --header 'Name: v'   add a field; 'Name:' removes a default one, 'Name;'
                                   sends it empty (repeatable); @FILE: one per line
          -A, --user-agent NAME    the User-Agent (default uvcombine-fetch/1; '' sends none)
          -e, --referer URL        the Referer field
          -u, --user USER:PASS     HTTP basic authentication (also from http://user:pass@...)
              --digest             answer the server's Digest challenge with -u's credentials
              --basic              send -u's credentials with Basic (the default)
          -d, --data DATA          POST DATA (form content type); @FILE reads FILE without
                                   its line breaks; repeated -d are joined with '&'
              --data-binary DATA   as -d, but @FILE is read as is
              --data-raw DATA      as -d, without @FILE
              --data-urlencode D   as -d, URL-encoding the content of D (name=content, @file)
              --json DATA          as --data-binary, with Content-Type and Accept application/json
          -F, --form NAME=VALUE    a multipart/form-data POST: VALUE, @FILE (a file part),
                                   <FILE (the file's content); ;type= and ;filename= after
              --form-string N=V    a form field taken literally
          -b, --cookie 'N=V; ...'  send these cookies; -b FILE reads a cookie jar (curl's
                                   Netscape format) and switches the cookie engine on
          -c, --cookie-jar FILE    write the cookies to FILE when done (engine on)
          -G, --get                send the -d data as the URL's query with GET
          -T, --upload-file FILE   PUT FILE (to URL/FILE when URL ends with '/')
          -L, --location           follow redirects (a 3xx but 304 with a Location), up to
                                   --max-redirs
              --max-redirs N       at most N redirects (default 50; exit 47 beyond)
              --location-trusted   keep sending -u credentials to other hosts on redirects
          -f, --fail               exit 22 on an HTTP status of 400 or more, writing no body
              --fail-with-body     exit 22 on 400 or more, after writing the body
          -m, --max-time SECONDS   fail with exit 28 when one attempt takes longer
              --connect-timeout S  fail with exit 28 when connecting (TCP and TLS) takes longer
              --retry N            retry transient failures N times: timeouts, a host that does
                                   not resolve, HTTP 408 429 500 502 503 504 (Retry-After honoured)
              --retry-delay S      wait S seconds between retries (default: 1 s, doubling)
              --retry-max-time S   retry only while S seconds have not passed
              --retry-connrefused  also retry a refused connection
              --retry-all-errors   retry every failure
          -w, --write-out FORMAT   print FORMAT after the transfer: %{http_code},
                                   %{size_download}, %{time_total}, %{url_effective} ...
                                   (curl's variables; @FILE reads FORMAT from FILE)
          -s, --silent             print no error messages (nor progress)
          -S, --show-error         with -s, print error messages anyway
          -v, --verbose            trace the exchange on standard error: '> ' request lines,
                                   '< ' response lines, '* ' notes
              --cacert FILE        verify https servers against the CA certificates in FILE
          -k, --insecure           do not verify the https server's certificate (tests only)
              --compressed         ask for gzip or deflate and decode the body (exit 61 when
                                   it does not decode)
              --unix-socket PATH   connect to the Unix domain socket PATH
              --http1.1            use HTTP/1.1 only
              --http2              use HTTP/2 where TLS (ALPN) agrees (the default); HTTP/1.1
                                   on cleartext
              --http2-prior-knowledge
                                   speak HTTP/2 on cleartext from the first byte (h2c)
          -x, --proxy URL          use the HTTP proxy at [http://][user:pass@]host[:port] (port
                                   1080 by default); an empty URL means none. Without -x:
                                   http_proxy, https_proxy/HTTPS_PROXY, all_proxy/ALL_PROXY
          -U, --proxy-user U:P     the proxy's user and password (basic authentication)
              --noproxy LIST       hosts reached without the proxy (overrides no_proxy/NO_PROXY)
          -h, --help               show this help
          -V, --version            show the version

        Several URLs are fetched one after the other; the n-th -o or -O goes with the
        n-th URL; the exit status is the last transfer's.

        Also as curl: --proto and --proto-redir (e.g. --proto '=https': exit 1 for http),
        -R (file time from Last-Modified), --max-filesize N (exit 63),
        --fail-early, --remove-on-error, --oauth2-bearer TOKEN, --tlsv1.3,
        --path-as-is, -q, -N; FTP, mail, TFTP and telnet options are accepted and
        have no effect on HTTP, as with curl.

        Exit status: curl's. 0 done (whatever the HTTP status, unless -f), 1 unsupported
        scheme, 2 bad command line, 3 bad URL, 4 a curl option (or proxy scheme) this tool
        does not implement, 5 proxy not resolved, 6 host not resolved, 7 cannot connect,
        8 invalid HTTP response, 22 HTTP status >= 400 with -f, 23 cannot write the output,
        26 cannot read a file to send, 28 timed out, 35 TLS handshake failed, 43 invalid
        request, 47 too many redirects, 52 empty reply, 56 connection lost while receiving
        or the proxy refused CONNECT,
        60 certificate not accepted, 61 the compressed body does not decode,
        63 response too large, 77 the --cacert file cannot be read.
        """

    /// The options: each name (long, and short when it has one), whether it
    /// takes a value, and what it sets.
    private struct Spec {
        let long: String
        let short: Character?
        let takesValue: Bool
    }

    private static let specs: [Spec] = [
        Spec(long: "output", short: "o", takesValue: true),
        Spec(long: "remote-name", short: "O", takesValue: false),
        Spec(long: "remote-name-all", short: nil, takesValue: false),
        Spec(long: "output-dir", short: nil, takesValue: true),
        Spec(long: "create-dirs", short: nil, takesValue: false),
        Spec(long: "dump-header", short: "D", takesValue: true),
        Spec(long: "range", short: "r", takesValue: true),
        Spec(long: "include", short: "i", takesValue: false),
        Spec(long: "head", short: "I", takesValue: false),
        Spec(long: "request", short: "X", takesValue: true),
        Spec(long: "header", short: "H", takesValue: true),
        Spec(long: "user-agent", short: "A", takesValue: true),
        Spec(long: "referer", short: "e", takesValue: true),
        Spec(long: "user", short: "u", takesValue: true),
        Spec(long: "data", short: "d", takesValue: true),
        Spec(long: "data-ascii", short: nil, takesValue: true),
        Spec(long: "data-binary", short: nil, takesValue: true),
        Spec(long: "data-raw", short: nil, takesValue: true),
        Spec(long: "data-urlencode", short: nil, takesValue: true),
        Spec(long: "json", short: nil, takesValue: true),
        Spec(long: "form", short: "F", takesValue: true),
        Spec(long: "form-string", short: nil, takesValue: true),
        Spec(long: "cookie", short: "b", takesValue: true),
        Spec(long: "cookie-jar", short: "c", takesValue: true),
        Spec(long: "get", short: "G", takesValue: false),
        Spec(long: "path-as-is", short: nil, takesValue: false),
        Spec(long: "proto", short: nil, takesValue: true),
        Spec(long: "noproxy", short: nil, takesValue: true),
        Spec(long: "proxy-user", short: "U", takesValue: true),
        Spec(long: "proto-redir", short: nil, takesValue: true),
        Spec(long: "upload-file", short: "T", takesValue: true),
        Spec(long: "location", short: "L", takesValue: false),
        Spec(long: "max-redirs", short: nil, takesValue: true),
        Spec(long: "location-trusted", short: nil, takesValue: false),
        Spec(long: "fail", short: "f", takesValue: false),
        Spec(long: "fail-with-body", short: nil, takesValue: false),
        Spec(long: "max-time", short: "m", takesValue: true),
        Spec(long: "connect-timeout", short: nil, takesValue: true),
        Spec(long: "retry", short: nil, takesValue: true),
        Spec(long: "retry-delay", short: nil, takesValue: true),
        Spec(long: "retry-max-time", short: nil, takesValue: true),
        Spec(long: "retry-connrefused", short: nil, takesValue: false),
        Spec(long: "retry-all-errors", short: nil, takesValue: false),
        Spec(long: "write-out", short: "w", takesValue: true),
        Spec(long: "silent", short: "s", takesValue: false),
        Spec(long: "show-error", short: "S", takesValue: false),
        Spec(long: "verbose", short: "v", takesValue: false),
        Spec(long: "cacert", short: nil, takesValue: true),
        Spec(long: "insecure", short: "k", takesValue: false),
        Spec(long: "compressed", short: nil, takesValue: false),
        Spec(long: "unix-socket", short: nil, takesValue: true),
        Spec(long: "proxy", short: "x", takesValue: true),
        Spec(long: "url", short: nil, takesValue: true),
        Spec(long: "help", short: "h", takesValue: false),
        Spec(long: "version", short: "V", takesValue: false),
        // curl's options that are accepted and have nothing to do here:
        // progress display, FTP-only options curl ignores for HTTP, and
        // what this tool does anyway (no URL globbing, paths as given, no
        // decoding unless asked).
        Spec(long: "progress-bar", short: "#", takesValue: false),
        Spec(long: "globoff", short: "g", takesValue: false),

        Spec(long: "raw", short: nil, takesValue: false),
        Spec(long: "styled-output", short: nil, takesValue: false),
        Spec(long: "quote", short: "Q", takesValue: true),
        Spec(long: "ftp-pasv", short: nil, takesValue: false),
        Spec(long: "list-only", short: "l", takesValue: false),
        Spec(long: "append", short: "a", takesValue: false),
        Spec(long: "sasl-ir", short: nil, takesValue: false),
        Spec(long: "ssl-no-revoke", short: nil, takesValue: false),
        // Implemented, or (FTP, mail, TFTP, telnet options; TCP and TLS
        // details this tool does anyway) accepted and without effect for
        // HTTP, as curl.
        Spec(long: "basic", short: nil, takesValue: false),
        Spec(long: "digest", short: nil, takesValue: false),
        Spec(long: "crlf", short: nil, takesValue: false),
        Spec(long: "disable", short: "q", takesValue: false),
        Spec(long: "disable-eprt", short: nil, takesValue: false),
        Spec(long: "disable-epsv", short: nil, takesValue: false),
        Spec(long: "fail-early", short: nil, takesValue: false),
        Spec(long: "ftp-account", short: nil, takesValue: true),
        Spec(long: "ftp-alternative-to-user", short: nil, takesValue: true),
        Spec(long: "ftp-create-dirs", short: nil, takesValue: false),
        Spec(long: "ftp-method", short: nil, takesValue: true),
        Spec(long: "ftp-port", short: "P", takesValue: true),
        Spec(long: "ftp-pret", short: nil, takesValue: false),
        Spec(long: "ftp-skip-pasv-ip", short: nil, takesValue: false),
        Spec(long: "ftp-ssl-ccc", short: nil, takesValue: false),
        Spec(long: "ftp-ssl-ccc-mode", short: nil, takesValue: true),
        Spec(long: "ftp-ssl-control", short: nil, takesValue: false),
        Spec(long: "krb", short: nil, takesValue: true),
        Spec(long: "login-options", short: nil, takesValue: true),
        Spec(long: "mail-auth", short: nil, takesValue: true),
        Spec(long: "mail-from", short: nil, takesValue: true),
        Spec(long: "mail-rcpt", short: nil, takesValue: true),
        Spec(long: "mail-rcpt-allowfails", short: nil, takesValue: false),
        Spec(long: "max-filesize", short: nil, takesValue: true),
        Spec(long: "no-alpn", short: nil, takesValue: false),
        Spec(long: "no-buffer", short: "N", takesValue: false),
        Spec(long: "no-keepalive", short: nil, takesValue: false),
        Spec(long: "no-npn", short: nil, takesValue: false),
        Spec(long: "no-sessionid", short: nil, takesValue: false),
        Spec(long: "oauth2-bearer", short: nil, takesValue: true),
        Spec(long: "remote-time", short: "R", takesValue: false),
        Spec(long: "remove-on-error", short: nil, takesValue: false),
        Spec(long: "sasl-authzid", short: nil, takesValue: true),
        Spec(long: "ssl", short: nil, takesValue: false),
        Spec(long: "ssl-reqd", short: nil, takesValue: false),
        Spec(long: "tcp-fastopen", short: nil, takesValue: false),
        Spec(long: "telnet-option", short: "t", takesValue: true),
        Spec(long: "tftp-blksize", short: nil, takesValue: true),
        Spec(long: "tftp-no-options", short: nil, takesValue: false),
        Spec(long: "trace-time", short: nil, takesValue: false),
        Spec(long: "use-ascii", short: "B", takesValue: false),
        Spec(long: "tlsv1.2", short: nil, takesValue: false),
        Spec(long: "tlsv1.3", short: nil, takesValue: false),
        Spec(long: "no-progress-meter", short: nil, takesValue: false),
        Spec(long: "http1.1", short: nil, takesValue: false),
        Spec(long: "http2", short: nil, takesValue: false),
        Spec(long: "http2-prior-knowledge", short: nil, takesValue: false),
        Spec(long: "tcp-nodelay", short: nil, takesValue: false),
    ]

    /// Options curl has that this tool does not implement: accepted by the
    /// parser (so their values are not taken for URLs), then refused with
    /// status 4. Values: whether the option takes a value.
    private static let notImplemented: [String: (short: Character?, takesValue: Bool)] = [
        "continue-at": ("C", true), "cert": ("E", true), "key": (nil, true),
        "http3": (nil, false), "http1.0": ("0", false), "ipv4": ("4", false),
        "ipv6": ("6", false), "limit-rate": (nil, true), "resolve": (nil, true),
"socks5": (nil, true), "ntlm": (nil, false),
        "negotiate": (nil, false), "anyauth": (nil, false), "netrc": ("n", false), "config": ("K", true),
        "parallel": ("Z", false), "remote-header-name": ("J", false),
        "trace": (nil, true), "trace-ascii": (nil, true), "stderr": (nil, true), "interface": (nil, true),
        "local-port": (nil, true), "keepalive-time": (nil, true), "speed-limit": ("Y", true),
        "speed-time": ("y", true), "time-cond": ("z", true), 
        "capath": (nil, true), "pinnedpubkey": (nil, true), "post301": (nil, false), "post302": (nil, false),
        "post303": (nil, false),
        "junk-session-cookies": ("j", false), "next": (nil, false),
        "dns-servers": (nil, true), "happy-eyeballs-timeout-ms": (nil, true),
        "expect100-timeout": (nil, true), "ignore-content-length": (nil, false), "manual": ("M", false),
        // The rest of curl 7.88's options (curl --help all).
        "abstract-unix-socket": (nil, true), "alt-svc": (nil, true), "aws-sigv4": (nil, true),
        "cert-status": (nil, false), "cert-type": (nil, true), "ciphers": (nil, true),
        "compressed-ssh": (nil, false), "connect-to": (nil, true), "create-file-mode": (nil, true),
        "crlfile": (nil, true), "curves": (nil, true), "delegation": (nil, true),
        "disallow-username-in-url": (nil, false), "dns-interface": (nil, true), "dns-ipv4-addr": (nil, true),
        "dns-ipv6-addr": (nil, true), "doh-cert-status": (nil, false), "doh-insecure": (nil, false),
        "doh-url": (nil, true), "egd-file": (nil, true), "engine": (nil, true), "etag-compare": (nil, true),
        "etag-save": (nil, true), "false-start": (nil, false), "form-escape": (nil, false),
"haproxy-protocol": (nil, false), "hostpubmd5": (nil, true),
        "hostpubsha256": (nil, true), "hsts": (nil, true), "http0.9": (nil, false),
        "http3-only": (nil, false), "key-type": (nil, true),
        "libcurl": (nil, true), "metalink": (nil, false), "netrc-file": (nil, true), "netrc-optional": (nil, false),
        "no-clobber": (nil, false), "ntlm-wb": (nil, false), "parallel-immediate": (nil, false),
        "parallel-max": (nil, true), "pass": (nil, true), "preproxy": (nil, false), "proto-default": (nil, true),
        "proxy-anyauth": (nil, false), "proxy-basic": (nil, false), "proxy-cacert": (nil, true),
        "proxy-capath": (nil, true), "proxy-cert": (nil, true), "proxy-cert-type": (nil, true),
        "proxy-ciphers": (nil, true), "proxy-crlfile": (nil, true), "proxy-digest": (nil, false),
        "proxy-header": (nil, true), "proxy-insecure": (nil, false), "proxy-key": (nil, true),
        "proxy-key-type": (nil, true), "proxy-negotiate": (nil, false), "proxy-ntlm": (nil, false),
        "proxy-pass": (nil, true), "proxy-pinnedpubkey": (nil, true), "proxy-service-name": (nil, true),
        "proxy-ssl-allow-beast": (nil, false), "proxy-ssl-auto-client-cert": (nil, false),
        "proxy-tls13-ciphers": (nil, true), "proxy-tlsauthtype": (nil, true), "proxy-tlspassword": (nil, true),
        "proxy-tlsuser": (nil, true), "proxy-tlsv1": (nil, false), "proxy1.0": (nil, true),
        "proxytunnel": ("p", false), "pubkey": (nil, true), "random-file": (nil, true), "rate": (nil, true),
        "request-target": (nil, true), "service-name": (nil, true), "socks4": (nil, true), "socks4a": (nil, true),
        "socks5-basic": (nil, false), "socks5-gssapi": (nil, false), "socks5-gssapi-nec": (nil, false),
        "socks5-gssapi-service": (nil, true), "socks5-hostname": (nil, true), "ssl-allow-beast": (nil, false),
        "ssl-auto-client-cert": (nil, false), "ssl-revoke-best-effort": (nil, false), "sslv2": ("2", false),
        "sslv3": ("3", false), "suppress-connect-headers": (nil, false), "tls-max": (nil, true),
        "tls13-ciphers": (nil, true), "tlsauthtype": (nil, true), "tlspassword": (nil, true), "tlsuser": (nil, true),
        "tlsv1": ("1", false), "tlsv1.0": (nil, false), "tlsv1.1": (nil, false), "tr-encoding": (nil, false),
        "url-query": (nil, true), "xattr": (nil, false),
    ]

    /// Parses the arguments after `fetch`.
    static func parse(_ arguments: [String]) throws(UsageError) -> FetchOptions {
        var options = FetchOptions()
        var urls: [String] = []
        var index = 0
        var optionsEnded = false

        func nextValue(_ shown: String) throws(UsageError) -> String {
            index += 1
            guard index < arguments.count else { throw UsageError(description: "option \(shown): requires parameter") }
            return arguments[index]
        }

        while index < arguments.count {
            let argument = arguments[index]
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                urls.append(argument)
            } else if argument == "--" {
                optionsEnded = true
            } else if argument.hasPrefix("--") {
                var name = String(argument.dropFirst(2))
                var attached: String?
                if let equals = name.firstIndex(of: "=") {
                    attached = String(name[name.index(after: equals)...])
                    name = String(name[..<equals])
                }
                var negated = false
                if specs.first(where: { $0.long == name }) == nil && notImplemented[name] == nil,
                   name.hasPrefix("no-") {
                    negated = true
                    name = String(name.dropFirst(3))
                }
                if let spec = specs.first(where: { $0.long == name }), !(negated && spec.takesValue) {
                    if spec.takesValue {
                        let value: String
                        if let attached { value = attached } else { value = try nextValue(argument) }
                        try options.apply(spec.long, value: value, shown: "--\(spec.long)")
                    } else {
                        guard attached == nil else { throw UsageError(description: "option \(argument): is unknown") }
                        try options.apply(spec.long, value: negated ? "no" : nil, shown: "--\(spec.long)")
                    }
                } else if let known = notImplemented[name] {
                    if known.takesValue && attached == nil { _ = try nextValue(argument) }
                    options.unsupported = options.unsupported ?? "--\(name)"
                } else {
                    throw UsageError(description: "option \(argument): is unknown")
                }
            } else {
                // A cluster of short options: flags, then at most one
                // option whose value is the rest or the next argument.
                var letters = Substring(argument.dropFirst())
                while let letter = letters.first {
                    letters = letters.dropFirst()
                    if let spec = specs.first(where: { $0.short == letter }) {
                        if spec.takesValue {
                            let value = letters.isEmpty ? try nextValue("-\(letter)") : String(letters)
                            try options.apply(spec.long, value: value, shown: "-\(letter)")
                            break
                        }
                        try options.apply(spec.long, value: nil, shown: "-\(letter)")
                    } else if let (name, known) = notImplemented.first(where: { $0.value.short == letter }) {
                        options.unsupported = options.unsupported ?? "--\(name)"
                        if known.takesValue {
                            if letters.isEmpty { _ = try nextValue("-\(letter)") }
                            break
                        }
                    } else {
                        throw UsageError(description: "option \(argument): is unknown")
                    }
                }
            }
            index += 1
        }
        if options.help || options.version { return options }
        if !options.form.isEmpty && ((!options.data.isEmpty && !options.getWithData) || options.headOnly
                                      || options.uploadFile != nil) {
            throw UsageError(description: "You can only select one HTTP request method! You asked for both POST (-d, --data) and MULTIPART formpost (-F, --form).")
        }
        if options.headOnly && ((!options.data.isEmpty && !options.getWithData) || options.uploadFile != nil) {
            let other = options.uploadFile != nil ? "PUT (-T, --upload-file)" : "POST (-d, --data)"
            throw UsageError(description: "You can only select one HTTP request method! You asked for both \(other) and HEAD (-I, --head).")
        }
        urls = options.urlOptions + urls
        guard !urls.isEmpty else { throw UsageError(description: "no URL specified!") }
        options.urls = urls
        return options
    }

    /// `--url URL`: URLs given as options (before the others).
    private var urlOptions: [String] = []

    private mutating func apply(_ option: String, value: String?, shown: String) throws(UsageError) {
        let on = value != "no"
        func number(_ text: String?) throws(UsageError) -> Double {
            guard let text, let number = Double(text), number >= 0, number.isFinite else {
                throw UsageError(description: "option \(shown): expected a proper numerical parameter")
            }
            return number
        }
        func integer(_ text: String?) throws(UsageError) -> Int {
            guard let text, let number = Int(text), number >= -1 else {
                throw UsageError(description: "option \(shown): expected a proper numerical parameter")
            }
            return number
        }
        switch option {
        case "output": outputs.append(value)
        case "remote-name": if on { outputs.append(nil) }
        case "remote-name-all": remoteNameAll = on
        case "output-dir": outputDirectory = value
        case "create-dirs": createDirectories = on
        case "dump-header": dumpHeader = value
        case "range": range = value
        case "include": includeHead = on
        case "head": headOnly = on
        case "request": method = value
        case "header":
            guard let value else { return }
            if value.hasPrefix("@") {
                // `-H @file`: one header per line.
                let file = String(value.dropFirst())
                guard let contents = file == "-" ? FileHandle.standardInput.readDataToEndOfFile()
                        : FileManager.default.contents(atPath: file) else {
                    // As curl: a warning, and the transfer goes on.
                    warnings.append("Warning: Failed to open \(file)!")
                    return
                }
                for line in contents.split(separator: 0x0A) {
                    let text = String(decoding: line.prefix(while: { $0 != 0x0D }), as: UTF8.self)
                    if !text.isEmpty { try apply("header", value: text, shown: shown) }
                }
                return
            }
            if let colon = value.firstIndex(of: ":") {
                let name = String(value[..<colon])
                let rest = value[value.index(after: colon)...].drop(while: { $0 == " " || $0 == "\t" })
                if rest.isEmpty {
                    headers.append(.remove(name: name))
                } else {
                    headers.append(.add(name: name, value: String(rest)))
                }
            } else if value.hasSuffix(";") {
                // `Name;`: the field with an empty value.
                headers.append(.add(name: String(value.dropLast()), value: ""))
            }
            // curl ignores a header argument with neither ':' nor ';'.
        case "user-agent": userAgent = value
        case "referer": referer = value
        case "user": user = value
        // The last of --basic and --digest counts, as with curl.
        case "digest": digest = on
        case "basic": if on { digest = false }
        case "data", "data-ascii": data.append((.ascii, value ?? ""))
        case "data-binary": data.append((.binary, value ?? ""))
        case "data-raw": data.append((.raw, value ?? ""))
        case "data-urlencode": data.append((.urlencode, value ?? ""))
        case "form": form.append((value ?? "", false))
        case "form-string": form.append((value ?? "", true))
        case "cookie":
            if let value, value.contains("=") {
                cookie = cookie.map { $0 + "; " + value } ?? value
            } else {
                cookieFiles.append(value ?? "")
            }
        case "cookie-jar": cookieJar = value
        case "json":
            data.append((.binary, value ?? ""))
            json = true
        case "get": getWithData = on
        case "path-as-is": pathAsIs = on
        case "proto": protocols = Self.protocols(value ?? "", from: protocols)
        case "proto-redir": redirectProtocols = Self.protocols(value ?? "", from: redirectProtocols)
        case "max-filesize": maximumFileSize = try integer(value)
        case "fail-early": failEarly = on
        case "remove-on-error": removeOnError = on
        case "remote-time": remoteTime = on
        case "oauth2-bearer": bearer = value
        case "tlsv1.3": tlsVersion13 = on
        case "upload-file": uploadFile = value
        case "location": followRedirects = on
        case "max-redirs": maximumRedirects = try integer(value)
        case "location-trusted":
            locationTrusted = on
            if on { followRedirects = true }
        case "fail": failOnHTTPError = on
        case "fail-with-body": failWithBody = on
        case "max-time": maxTime = try number(value)
        case "connect-timeout": connectTimeout = try number(value)
        case "retry": retries = try integer(value)
        case "retry-delay": retryDelay = try number(value)
        case "retry-max-time": retryMaxTime = try number(value)
        case "retry-connrefused": retryConnectionRefused = on
        case "retry-all-errors": retryAllErrors = on
        case "write-out": writeOut = value
        case "silent": silent = on
        case "show-error": showError = on
        case "verbose": verbose = on
        case "cacert": caCertificates = value
        case "insecure": insecure = on
        case "compressed": compressed = on
        case "http1.1": httpVersion = .http1_1
        case "http2": httpVersion = .automatic
        case "http2-prior-knowledge": httpVersion = .http2PriorKnowledge
        case "unix-socket": unixSocket = value
        case "proxy": proxy = value
        case "proxy-user": proxyUser = value
        case "noproxy": noProxy = value
        case "url": if let value { urlOptions.append(value) }
        case "help": help = true
        case "version": version = true
        default: break
        }
    }
}
