import CCurlMulti

/// Sizes and names of the HTTP/2 workloads (issue 33), shared by
/// HTTP2Benchmarks and HTTP2Profile.
///
/// ```swift
/// runner.run(total: H2Workload.requests, width: H2Workload.streams)
/// ```
public enum H2Workload {
    /// Requests in flight on the one HTTP/2 connection.
    public static let streams = 100
    /// Requests per iteration of the HTTP/2 workloads (30 per stream).
    public static let requests = 100 * 30
    /// HTTP/1.1 connections (one request in flight on each).
    public static let connections = 64
    /// Requests per iteration of the HTTP/1.1 workloads (50 per connection).
    public static let http1Requests = 64 * 50

    /// Whether libcurl can multiplex HTTP/2 with prior knowledge: 8.0.0
    /// or later (7.88.1, Debian 12's, fails on the reused connection:
    /// curl issue 10634, fixed by curl pull request 10643 in 8.0.0).
    public static var libcurlMultiplexesPriorKnowledge: Bool {
        cm_libcurl_version_number() >= 0x08_00_00
    }
}
