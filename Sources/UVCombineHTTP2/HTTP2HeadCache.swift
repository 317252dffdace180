import HTTPTypes

/// The last final response head of a connection, reused while the server
/// sends the same one again: HTTP/2's counterpart of the HTTP/1.1 parser's
/// head cache (docs/url-session.md, "Cost per request").
///
/// A server sends the same fields for the same resource (nginx: `Date`
/// changes once a second), so a response whose status and fields equal the
/// last one's, in order and byte for byte, is that `HTTPResponse`, shared
/// (copy on write) instead of built again: no field array, no value
/// strings. The fields of the block being received are compared as nghttp2
/// decodes them; at the first that differs, the ones matched so far are
/// copied and the block is collected as usual. Only one header block is
/// received at a time on a connection (RFC 9113 6.10: nothing interleaves a
/// HEADERS and its CONTINUATIONs), so one cache serves every stream. 1xx
/// heads and trailers never replace it.
///
/// Threading: its connection's.
///
/// ```swift
/// cache.begin(expectsFinalHead: true)
/// if !cache.repeats(name: name, value: value) { fields = cache.divergedPrefix(); fields.append(field) }
/// let response = cache.finish(status: 200, received: fields)
/// ```
internal struct HTTP2HeadCache {
    /// The last final head built.
    internal private(set) var last: HTTPResponse?
    /// How many fields of the block being received repeat `last`'s so
    /// far; nil when the block differs (or there is nothing to match).
    internal private(set) var matched: Int?

    internal init() {}

    /// A header block begins: a response head is matched against the last
    /// one; trailers are not.
    internal mutating func begin(expectsFinalHead: Bool) {
        matched = expectsFinalHead && last != nil ? 0 : nil
    }

    /// Whether the block still repeats the last head with this field next;
    /// false when it does not (or no longer), and the caller collects the
    /// field after taking ``divergedPrefix()`` once.
    internal mutating func repeats(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> Bool {
        guard let count = matched, let fields = last?.headerFields, count < fields.count else { return false }
        let field = fields[count]
        let same = field.name.rawName.utf8.elementsEqual(name)
            && field.withUnsafeBytesOfValue { $0.elementsEqual(value) }
        guard same else { return false }
        matched = count + 1
        return true
    }

    /// The fields matched before the block diverged, to collect the rest
    /// after; ends matching for this block.
    internal mutating func divergedPrefix() -> HTTPFields {
        defer { matched = nil }
        guard let count = matched, count > 0, let fields = last?.headerFields else { return HTTPFields() }
        return HTTPFields(fields.prefix(count))
    }

    /// The head of a block that ended with `status`: the last one when
    /// every field and the status repeat it, else one built from what was
    /// matched or `received` (and kept, when final).
    internal mutating func finish(status: Int, received: HTTPFields) -> HTTPResponse {
        defer { matched = nil }
        var fields = received
        if let count = matched, let last {
            if count == last.headerFields.count && last.status.code == status { return last }
            fields = count == last.headerFields.count ? last.headerFields : HTTPFields(last.headerFields.prefix(count))
        }
        let response = HTTPResponse(status: HTTPResponse.Status(code: status), headerFields: fields)
        if !(100..<200).contains(status) { last = response }
        return response
    }
}
