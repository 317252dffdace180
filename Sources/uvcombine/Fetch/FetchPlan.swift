import Foundation
import HTTPTypes
import UVCombineHTTPCore

/// What `fetch` sends, worked out from the options before anything is
/// connected, following curl's rules:
///
/// - the URL gets `http://` when it has no scheme; user info in it
///   (`http://user:pass@host/`) becomes basic authentication unless `-u`
///   says otherwise; `-G` appends the `-d` data to the query; `-T FILE`
///   to a URL ending in `/` appends FILE's name;
/// - the method: `-X`, else HEAD for `-I`, PUT for `-T`, POST for `-d`,
///   else GET;
/// - the fields in curl's order: `Authorization`, `User-Agent`, `Accept`,
///   `Referer`, then every `-H`, then `Content-Type` (form, for `-d`) and
///   `Expect: 100-continue` (for `-T`, and for a `-d` body over 1 MiB). A
///   `-H` with the name of a default field replaces it in the `-H`
///   position; `-H 'Name:'` removes it. (`Content-Length` is written by
///   the session after the fields, where curl puts it before
///   `Content-Type`.)
struct FetchPlan {
    /// A failure while preparing: its exit status and message.
    struct Failure: Error {
        let status: Int32
        let message: String
    }

    var url: String
    /// The URL as given on the command line (`%{url}`).
    var commandLineURL: String
    /// The method `-I`, `-d` or `-T` chose (curl's "httpreq"), which a
    /// redirect may turn into GET.
    var method: String
    /// `-X`: the method sent on every request instead, after redirects too.
    var customMethod: String?
    /// The fields for every request.
    var fields: [(name: String, value: String)]
    /// The fields that go with the body (`Content-Type`, `Expect`), left
    /// out when a redirect drops the body.
    var bodyFields: [(name: String, value: String)]
    /// Where curl puts `Proxy-Connection: Keep-Alive` in a request to an
    /// http proxy (after `Referer`), or nil when a `-H` names the field.
    var proxyConnectionIndex: Int?
    var body: Data?
    /// The user and password for basic authentication, if any.
    var credentials: String?
    /// Warnings to print (unless `-s`).
    var warnings: [String] = []

    /// curl's limit above which a request body is announced with
    /// `Expect: 100-continue`.
    static let expectThreshold = 1024 * 1024

    init(options: FetchOptions, url commandLineURL: String) throws(Failure) {
        var url = commandLineURL
        if !url.contains("://") { url = "http://" + url }
        // curl refuses a URL with spaces or control characters.
        if url.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) {
            throw Failure(status: FetchExitCode.badURL, message: "URL using bad/illegal format or missing URL")
        }
        if !options.pathAsIs { url = Self.removingDotSegments(url) }
        var credentials = options.user
        if let (stripped, userInfo) = Self.splitUserInfo(url) {
            url = stripped
            if credentials == nil { credentials = userInfo }
        }

        var warnings: [String] = []
        var dataBody: Data?
        if !options.data.isEmpty {
            var joined = Data()
            for (index, item) in options.data.enumerated() {
                if index > 0 { joined.append(UInt8(ascii: "&")) }
                joined.append(Self.read(item, warnings: &warnings))
            }
            dataBody = joined
        }

        var body: Data?
        var method = "GET"
        if options.headOnly {
            method = "HEAD"
        }
        if let dataBody {
            if options.getWithData {
                let query = String(decoding: dataBody, as: UTF8.self)
                url += (Self.hasQuery(url) ? "&" : "?") + query
            } else {
                body = dataBody
                if !options.headOnly { method = "POST" }
            }
        }
        var formBoundary: String?
        if !options.form.isEmpty {
            let boundary = String(repeating: "-", count: 24)
                + (0..<16).map { _ in String(UInt8.random(in: 0..<16), radix: 16) }.joined()
            body = try Self.multipart(options.form, boundary: boundary)
            formBoundary = boundary
            method = "POST"
        }
        if let file = options.uploadFile {
            let contents: Data
            if file == "-" {
                contents = FileHandle.standardInput.readDataToEndOfFile()
            } else {
                guard let read = FileManager.default.contents(atPath: file) else {
                    throw Failure(status: FetchExitCode.readError, message: "Failed to open/read local data from file/application")
                }
                contents = read
                if url.hasSuffix("/") {
                    url += (file as NSString).lastPathComponent
                }
            }
            body = contents
            method = "PUT"
        }

        // The default fields, then -H in order; a -H of the same name
        // takes a default's place (curl leaves the default out).
        let given = Set(options.headers.map { change -> String in
            switch change {
            case .add(let name, _), .remove(let name): name.lowercased()
            }
        })
        var fields: [(name: String, value: String)] = []
        func addDefault(_ name: String, _ value: String?) {
            guard let value, !given.contains(name.lowercased()) else { return }
            fields.append((name, value))
        }
        if var credentials, !options.digest {
            // curl would prompt for a missing password; fetch sends it empty.
            if !credentials.contains(":") { credentials += ":" }
            addDefault("Authorization", "Basic " + Data(credentials.utf8).base64EncodedString())
        } else if let token = options.bearer {
            addDefault("Authorization", "Bearer " + token)
        }
        let agent = options.userAgent ?? "uvcombine-fetch/1"
        addDefault("User-Agent", agent.isEmpty ? nil : agent)
        if options.json {
            addDefault("Content-Type", "application/json")
            addDefault("Accept", "application/json")
        } else {
            addDefault("Accept", "*/*")
        }
        addDefault("Referer", options.referer)
        let proxyConnectionIndex = given.contains("proxy-connection") ? nil : fields.count
        addDefault("Range", options.range.map { "bytes=" + $0 })
        addDefault("Cookie", options.cookie)
        for change in options.headers {
            if case .add(let name, let value) = change { fields.append((name, value)) }
        }
        let common = fields
        fields = []
        if dataBody != nil && !options.getWithData && options.uploadFile == nil && !options.json {
            addDefault("Content-Type", "application/x-www-form-urlencoded")
        }
        if let formBoundary {
            addDefault("Content-Type", "multipart/form-data; boundary=" + formBoundary)
        }
        if let body, options.uploadFile != nil || body.count > Self.expectThreshold {
            addDefault("Expect", "100-continue")
        }
        let bodyFields = fields
        fields = common

        self.url = url
        self.commandLineURL = commandLineURL
        self.method = method
        self.customMethod = options.method
        self.fields = fields
        self.bodyFields = bodyFields
        self.proxyConnectionIndex = proxyConnectionIndex
        self.body = body
        self.credentials = credentials
        self.warnings = warnings
    }

    /// curl's multipart/form-data body for `-F`: one part per field, a
    /// file part with its name and a content type from its extension.
    private static func multipart(_ form: [(spec: String, literal: Bool)], boundary: String) throws(Failure) -> Data {
        var body = Data()
        func append(_ text: String) { body.append(contentsOf: Array(text.utf8)) }
        for (spec, literal) in form {
            guard let equals = spec.firstIndex(of: "=") else {
                throw Failure(status: FetchExitCode.usage, message: "Illegally formatted input field!")
            }
            let name = String(spec[..<equals])
            var value = String(spec[spec.index(after: equals)...])
            var type: String?
            var filename: String?
            var content: Data
            if !literal && (value.hasPrefix("@") || value.hasPrefix("<")) {
                // ;type= and ;filename= after the file name.
                var modifiers = value.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
                value = modifiers.removeFirst()
                for modifier in modifiers {
                    if modifier.hasPrefix("type=") { type = String(modifier.dropFirst(5)) }
                    if modifier.hasPrefix("filename=") { filename = String(modifier.dropFirst(9)) }
                }
                let path = String(value.dropFirst())
                guard let read = path == "-" ? FileHandle.standardInput.readDataToEndOfFile()
                        : FileManager.default.contents(atPath: path) else {
                    throw Failure(status: FetchExitCode.readError, message: "Failed to open/read local data from file/application")
                }
                content = read
                if value.hasPrefix("@") {
                    filename = filename ?? (path as NSString).lastPathComponent
                    type = type ?? contentType(forFile: filename!)
                }
            } else {
                if !literal, let semicolon = value.firstIndex(of: ";") {
                    let modifiers = value[value.index(after: semicolon)...]
                    if modifiers.hasPrefix("type=") { type = String(modifiers.dropFirst(5)) }
                    value = String(value[..<semicolon])
                }
                content = Data(value.utf8)
            }
            append("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"")
            if let filename { append("; filename=\"\(filename)\"") }
            append("\r\n")
            if let type { append("Content-Type: \(type)\r\n") }
            append("\r\n")
            body.append(content)
            append("\r\n")
        }
        append("--\(boundary)--\r\n")
        return body
    }

    /// curl's guess of a file part's type from its extension.
    private static func contentType(forFile name: String) -> String {
        switch (name as NSString).pathExtension.lowercased() {
        case "gif": "image/gif"
        case "jpg", "jpeg": "image/jpeg"
        case "png": "image/png"
        case "svg": "image/svg+xml"
        case "txt": "text/plain"
        case "htm", "html": "text/html"
        case "pdf": "application/pdf"
        case "xml": "application/xml"
        default: "application/octet-stream"
        }
    }

    /// The fields for one request: the common ones, the body's when it
    /// has one, and without `Authorization` once a redirect left the
    /// first host (scheme, host and port) unless `--location-trusted`.
    /// For an `http` request through a proxy (`forwardProxied`), curl's
    /// `Proxy-Connection: Keep-Alive` too.
    func fields(withBody: Bool, keepingCredentials: Bool, forwardProxied: Bool = false) -> [(name: String, value: String)] {
        var common = fields
        if forwardProxied, let index = proxyConnectionIndex {
            common.insert(("Proxy-Connection", "Keep-Alive"), at: index)
        }
        let all = withBody ? common + bodyFields : common
        guard !keepingCredentials else { return all }
        return all.filter { $0.name.lowercased() != "authorization" }
    }

    /// `scheme://user:pass@host/...` → the URL without the user info, and
    /// the user info percent-decoded.
    private static func splitUserInfo(_ url: String) -> (String, String)? {
        guard let schemeEnd = url.range(of: "://") else { return nil }
        let rest = url[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        guard let at = authority.lastIndex(of: "@") else { return nil }
        let userInfo = String(authority[..<at])
        let stripped = String(url[..<schemeEnd.upperBound]) + String(authority[authority.index(after: at)...])
            + String(rest[authorityEnd...])
        return (stripped, userInfo.removingPercentEncoding ?? userInfo)
    }

    /// The URL with `.` and `..` segments of its path resolved (RFC 3986
    /// section 5.2.4), as curl sends it unless `--path-as-is`.
    static func removingDotSegments(_ url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return url }
        let afterScheme = url[schemeEnd.upperBound...]
        guard let pathStart = afterScheme.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }),
              afterScheme[pathStart] == "/" else { return url }
        let pathEnd = afterScheme[pathStart...].firstIndex(where: { $0 == "?" || $0 == "#" }) ?? afterScheme.endIndex
        let path = afterScheme[pathStart..<pathEnd]
        guard path.contains(".") else { return url }
        // The path resolution is the one redirects use (UVCombineHTTPCore).
        return String(url[..<pathStart]) + HTTPURLReference.removingDotSegments(String(path))
            + String(afterScheme[pathEnd...])
    }

    private static func hasQuery(_ url: String) -> Bool {
        let withoutFragment = url.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
        return withoutFragment.contains("?")
    }

    /// One `-d`-family argument's bytes, as curl reads it.
    private static func read(_ item: (kind: FetchOptions.DataKind, value: String), warnings: inout [String]) -> Data {
        func file(_ name: String) -> Data {
            if name == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
            guard let contents = FileManager.default.contents(atPath: name) else {
                warnings.append("Warning: Couldn't read data from file \"\(name)\", this makes an empty POST.")
                return Data()
            }
            return contents
        }
        switch item.kind {
        case .raw:
            return Data(item.value.utf8)
        case .binary:
            return item.value.hasPrefix("@") ? file(String(item.value.dropFirst())) : Data(item.value.utf8)
        case .ascii:
            guard item.value.hasPrefix("@") else { return Data(item.value.utf8) }
            // curl drops carriage returns and newlines from a -d @file.
            return Data(file(String(item.value.dropFirst())).filter { $0 != 0x0D && $0 != 0x0A })
        case .urlencode:
            // content | =content | name=content | @file | name@file
            let value = item.value
            if let equals = value.firstIndex(of: "="), !value[..<equals].contains("@") {
                let name = value[..<equals]
                let encoded = urlencode(Data(value[value.index(after: equals)...].utf8))
                return Data(((name.isEmpty ? "" : name + "=") + encoded).utf8)
            }
            if let at = value.firstIndex(of: "@") {
                let name = value[..<at]
                let encoded = urlencode(file(String(value[value.index(after: at)...])))
                return Data(((name.isEmpty ? "" : name + "=") + encoded).utf8)
            }
            return Data(urlencode(Data(value.utf8)).utf8)
        }
    }

    /// curl's `--data-urlencode` encoding: unreserved bytes as they are,
    /// a space as `+`, every other byte as `%XX` (uppercase hex).
    private static func urlencode(_ bytes: Data) -> String {
        var text = ""
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"):
                text.unicodeScalars.append(UnicodeScalar(byte))
            case UInt8(ascii: " "):
                text += "+"
            default:
                text += String(format: "%%%02X", byte)
            }
        }
        return text
    }
}
