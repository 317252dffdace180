import Testing
import UVCombineHTTPCookies

@Suite("Cookie dates (RFC 6265 5.1.1)")
struct CookieDateTests {
    @Test("the three classic forms give the same instant", arguments: [
        "Sun, 06 Nov 1994 08:49:37 GMT",
        "Sunday, 06-Nov-94 08:49:37 GMT",
        "Sun Nov  6 08:49:37 1994",
        "06 nov 1994 8:49:37",
        "NOVEMBER 6 1994 08:49:37 utc",
    ])
    func classicForms(_ text: String) {
        #expect(CookieDate.parse(text) == 784_111_777)
    }

    @Test("two-digit years: 70-99 are 19xx, 00-69 are 20xx")
    func twoDigitYears() {
        #expect(CookieDate.parse("1 Jan 70 00:00:00") == 0)
        #expect(CookieDate.parse("31 Dec 69 23:59:59") == 3_155_759_999)
        #expect(CookieDate.parse("1 Jan 99 00:00:00") == 915_148_800)
        #expect(CookieDate.parse("1 Jan 00 00:00:00") == 946_684_800)
    }

    @Test("edge dates: leap day, 1601, past 2038")
    func edgeDates() {
        #expect(CookieDate.parse("29 Feb 2020 12:00:00") == 1_582_977_600)
        #expect(CookieDate.parse("1 Jan 1601 00:00:00") == -11_644_473_600)
        #expect(CookieDate.parse("Tue, 19 Jan 2038 03:14:08 GMT") == 2_147_483_648)
        #expect(CookieDate.parse("Thu, 01 Jan 2099 00:00:00 GMT") == 4_070_908_800)
        #expect(CookieDate.parse("1 Mar 2000 00:00:00") == 951_868_800)
    }

    @Test("dates the algorithm fails give nil", arguments: [
        "",
        "Sun, 06 Nov 1994",             // no time
        "06 Nov 08:49:37",              // no year
        "Nov 1994 08:49:37",            // no day (1994 is not a day)
        "06 1994 08:49:37",             // no month
        "32 Nov 1994 08:49:37",         // day out of range
        "0 Nov 1994 08:49:37",          // day zero
        "06 Nov 1600 08:49:37",         // before 1601
        "06 Nov 1994 24:00:00",         // hour
        "06 Nov 1994 23:60:00",         // minute
        "06 Nov 1994 23:59:60",         // second (no leap seconds)
        "30 Feb 2020 00:00:00",         // no such day
        "29 Feb 2100 00:00:00",         // 2100 is no leap year
        "31 Apr 2021 00:00:00",
        "06 Nov 1994 123:00:00",        // three-digit hour: not a time
        "06 Nov 19945 08:49:37",        // five-digit year
    ])
    func failures(_ text: String) {
        #expect(CookieDate.parse(text) == nil)
    }

    @Test("a token is a field when it starts like one: trailing non-digits are allowed")
    func trailingText() {
        #expect(CookieDate.parse("06th Nov 1994AD 08:49:37xyz") == 784_111_777)
    }
}
