/// RFC 6265 section 5.1.1's cookie-date algorithm: the lenient parser for
/// `Expires` values that browsers and curl share, with no Foundation.
///
/// Tokens are runs of non-delimiters; the first that looks like a time
/// (`hh:mm:ss`), a day of month (1–2 digits), a month (its first three
/// letters, any case) and a year (2–4 digits) fill those fields in that
/// order of tests. Two-digit years 70–99 mean 19xx and 00–69 mean 20xx.
/// The date fails when a field is missing, out of range, the year is
/// before 1601, or the day does not exist in that month (`Feb 30`).
///
/// Threading: pure functions; any thread.
///
/// ```swift
/// print(CookieDate.parse("Sun, 06 Nov 1994 08:49:37 GMT")!) // Prints: "784111777"
/// print(CookieDate.parse("Sunday, 06-Nov-94 08:49:37 GMT")!) // Prints: "784111777"
/// print(CookieDate.parse("Feb 30 2020 00:00:00") as Any)  // Prints: "nil"
/// ```
public enum CookieDate {
    /// Seconds since the epoch (UTC) for a cookie-date, or `nil` when the
    /// algorithm fails. Any zone name in the text is ignored (cookie dates
    /// are always UTC).
    public static func parse(_ text: some StringProtocol) -> Int64? {
        var time: (hour: Int, minute: Int, second: Int)?
        var day: Int?
        var month: Int?
        var year: Int?
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            while index < bytes.count, isDelimiter(bytes[index]) { index += 1 }
            let start = index
            while index < bytes.count, !isDelimiter(bytes[index]) { index += 1 }
            guard start < index else { continue }
            let token = bytes[start..<index]
            if time == nil, let found = parseTime(token) {
                time = found
            } else if day == nil, let found = leadingDigits(token, minimum: 1, maximum: 2) {
                day = found
            } else if month == nil, let found = parseMonth(token) {
                month = found
            } else if year == nil, let found = leadingDigits(token, minimum: 2, maximum: 4) {
                year = found
            }
        }
        guard let time, let day, let month, var year else { return nil }
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
        guard (1...31).contains(day), year >= 1601, time.hour <= 23, time.minute <= 59, time.second <= 59,
              day <= daysInMonth(month, year: year) else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        return days * 86_400 + Int64(time.hour * 3600 + time.minute * 60 + time.second)
    }

    /// RFC 6265's delimiter: %x09 / %x20-2F / %x3B-40 / %x5B-60 / %x7B-7E.
    internal static func isDelimiter(_ byte: UInt8) -> Bool {
        byte == 0x09 || (0x20...0x2F).contains(byte) || (0x3B...0x40).contains(byte)
            || (0x5B...0x60).contains(byte) || (0x7B...0x7E).contains(byte)
    }

    /// `minimum`…`maximum` digits, then nothing or a non-digit and
    /// anything: the value of the digits.
    private static func leadingDigits(_ token: ArraySlice<UInt8>, minimum: Int, maximum: Int) -> Int? {
        var value = 0
        var count = 0
        var index = token.startIndex
        while index < token.endIndex, CookieASCII.isDigit(token[index]) {
            guard count < maximum else { return nil }
            value = value * 10 + Int(token[index] - 0x30)
            count += 1
            index += 1
        }
        return count >= minimum ? value : nil
    }

    /// `hms-time ( non-digit *OCTET )` with 1–2 digits per field.
    private static func parseTime(_ token: ArraySlice<UInt8>) -> (hour: Int, minute: Int, second: Int)? {
        var fields = [0, 0, 0]
        var index = token.startIndex
        for field in 0..<3 {
            if field > 0 {
                guard index < token.endIndex, token[index] == 0x3A else { return nil }
                index += 1
            }
            var count = 0
            while index < token.endIndex, CookieASCII.isDigit(token[index]) {
                guard count < 2 else { return nil }
                fields[field] = fields[field] * 10 + Int(token[index] - 0x30)
                count += 1
                index += 1
            }
            guard count > 0 else { return nil }
        }
        return (fields[0], fields[1], fields[2])
    }

    /// The month (1–12) whose three-letter name starts the token, any case.
    private static func parseMonth(_ token: ArraySlice<UInt8>) -> Int? {
        guard token.count >= 3 else { return nil }
        var key: UInt32 = 0
        for byte in token.prefix(3) { key = key << 8 | UInt32(byte | 0x20) }
        switch key {
        case 0x6A616E: return 1 // jan
        case 0x666562: return 2 // feb
        case 0x6D6172: return 3 // mar
        case 0x617072: return 4 // apr
        case 0x6D6179: return 5 // may
        case 0x6A756E: return 6 // jun
        case 0x6A756C: return 7 // jul
        case 0x617567: return 8 // aug
        case 0x736570: return 9 // sep
        case 0x6F6374: return 10 // oct
        case 0x6E6F76: return 11 // nov
        case 0x646563: return 12 // dec
        default: return nil
        }
    }

    /// Days in `month` of `year` (Gregorian).
    internal static func daysInMonth(_ month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to the date (proleptic Gregorian), by the
    /// usual era-of-400-years count.
    internal static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int64 {
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let monthIndex = (month + 9) % 12
        let dayOfYear = (153 * monthIndex + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return Int64(era * 146_097 + dayOfEra - 719_468)
    }
}
