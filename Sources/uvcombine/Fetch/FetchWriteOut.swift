import Foundation
import HTTPTypes

/// What `-w` can report about the finished transfer (the last attempt,
/// the last response of a redirect chain).
struct FetchReport {
    var httpCode = 0
    var sizeDownload = 0
    var sizeUpload = 0
    var sizeHeader = 0
    var sizeRequest = 0
    var timeTotal = 0.0
    var timeNamelookup = 0.0
    var timeConnect = 0.0
    var timeAppconnect = 0.0
    var timePretransfer = 0.0
    var timeStarttransfer = 0.0
    var timeRedirect = 0.0
    var urlEffective = ""
    var url = ""
    var numRedirects = 0
    var numConnects = 0
    var contentType: String?
    var redirectURL: String?
    var exitCode: Int32 = 0
    var errorMessage = ""
    var method = "GET"
    var httpVersion: String?
    var scheme = "HTTP"
    var remoteIP = ""
    var remotePort = 0
    var outputFile: String?
    var responseFields: HTTPFields = [:]
}

/// curl's `--write-out` format: `%{variable}` replaced by its value,
/// `%header{name}` by a response field's value, `%%` by `%`, and `\n`,
/// `\r`, `\t`, `\\` by their characters. `%{stdout}` and `%{stderr}` switch
/// where the rest goes; `%{onerror}` ends the output unless the transfer
/// failed. An unknown variable prints a warning on standard error and
/// nothing on standard output, as curl does.
///
/// Times are seconds with six decimals (`0.012345`), as curl prints them;
/// The times come from the session's task metrics
/// (``FetchReport/add(hop:)``), summed over the hops of a redirect chain
/// as curl sums them.
enum FetchWriteOut {
    /// The text for each destination: (standard output?, bytes) in order.
    static func render(_ format: String, _ report: FetchReport, silent: Bool) -> [(toStandardOutput: Bool, text: String)] {
        var pieces: [(Bool, String)] = []
        var current = ""
        var toStandardOutput = true
        func flush() {
            if !current.isEmpty { pieces.append((toStandardOutput, current)) }
            current = ""
        }
        let characters = Array(format)
        var index = 0
        scan: while index < characters.count {
            let character = characters[index]
            if character == "%" && index + 1 < characters.count {
                let next = characters[index + 1]
                if next == "%" {
                    current.append("%")
                    index += 2
                    continue
                }
                if next == "{", let close = characters[(index + 2)...].firstIndex(of: "}") {
                    let name = String(characters[(index + 2)..<close])
                    index = close + 1
                    switch name {
                    case "stdout":
                        flush()
                        toStandardOutput = true
                    case "stderr":
                        flush()
                        toStandardOutput = false
                    case "onerror":
                        if report.exitCode == 0 { break scan }
                    default:
                        if let value = value(of: name, report) {
                            current += value
                        } else if !silent {
                            FetchOutput.writeStandardError(Array("uvcombine fetch: unknown --write-out variable: '\(name)'\n".utf8))
                        }
                    }
                    continue
                }
                if characters[(index + 1)...].starts(with: Array("header{")),
                   let close = characters[(index + 8)...].firstIndex(of: "}") {
                    let name = String(characters[(index + 8)..<close])
                    if let fieldName = HTTPField.Name(name) {
                        current += report.responseFields[values: fieldName].joined(separator: ", ")
                    }
                    index = close + 1
                    continue
                }
            }
            if character == "\\" && index + 1 < characters.count {
                switch characters[index + 1] {
                case "n": current.append("\n")
                case "r": current.append("\r")
                case "t": current.append("\t")
                case "\\": current.append("\\")
                default: current.append("\\"); current.append(characters[index + 1])
                }
                index += 2
                continue
            }
            current.append(character)
            index += 1
        }
        flush()
        return pieces
    }

    private static func seconds(_ value: Double) -> String {
        String(format: "%.6f", value)
    }

    /// A variable's value, or nil for a variable curl does not have.
    static func value(of name: String, _ report: FetchReport) -> String? {
        switch name {
        case "http_code", "response_code": String(format: "%03d", report.httpCode)
        case "http_connect": "000"
        case "size_download": String(report.sizeDownload)
        case "size_upload": String(report.sizeUpload)
        case "size_header": String(report.sizeHeader)
        case "size_request": String(report.sizeRequest)
        case "speed_download": String(Int(Double(report.sizeDownload) / max(report.timeTotal, 0.000001)))
        case "speed_upload": String(Int(Double(report.sizeUpload) / max(report.timeTotal, 0.000001)))
        case "time_total": seconds(report.timeTotal)
        case "time_namelookup": seconds(report.timeNamelookup)
        case "time_connect": seconds(report.timeConnect)
        case "time_appconnect": seconds(report.timeAppconnect)
        case "time_pretransfer": seconds(report.timePretransfer)
        case "time_starttransfer": seconds(report.timeStarttransfer)
        case "time_redirect": seconds(report.timeRedirect)
        case "url_effective": report.urlEffective
        case "url": report.url
        case "num_redirects": String(report.numRedirects)
        case "num_connects": String(report.numConnects)
        case "content_type": report.contentType ?? ""
        case "redirect_url": report.redirectURL ?? ""
        case "exitcode": String(report.exitCode)
        case "errormsg": report.errorMessage
        case "method": report.method
        case "http_version": report.httpVersion ?? "0"
        case "scheme": report.scheme
        case "remote_ip": report.remoteIP
        case "remote_port": report.remotePort == 0 ? "" : String(report.remotePort)
        case "local_ip": ""
        case "local_port": ""
        case "filename_effective": report.outputFile ?? ""
        case "ssl_verify_result", "proxy_ssl_verify_result": "0"
        case "num_headers": String(report.responseFields.count)
        default: nil
        }
    }
}
