import Testing
@testable import UVCombineWebSocketCore

@Suite("UTF-8 validator")
struct UTF8ValidatorTests {
    @Test("valid text, whole and split at every byte", arguments: ["", "hello", "κόσμε", "€", "𝄞 music", "\u{10FFFF}", "\u{D7FF}\u{E000}"])
    func valid(_ text: String) {
        let bytes = Array(text.utf8)
        var whole = UTF8Validator()
        let wholeValid = whole.validate(bytes)
        #expect(wholeValid && whole.isComplete)
        for split in 0...bytes.count {
            var validator = UTF8Validator()
            let headValid = validator.validate(bytes[..<split])
        #expect(headValid)
            let tailValid = validator.validate(bytes[split...])
        #expect(tailValid)
            #expect(validator.isComplete)
        }
    }

    @Test("invalid sequences fail at the first bad byte", arguments: [
        [0xC0, 0x80], // overlong NUL
        [0xC1, 0xBF], // overlong
        [0xE0, 0x80, 0x80], // overlong three-byte
        [0xED, 0xA0, 0x80], // surrogate U+D800
        [0xF0, 0x80, 0x80, 0x80], // overlong four-byte
        [0xF4, 0x90, 0x80, 0x80], // above U+10FFFF
        [0xF5, 0x80, 0x80, 0x80],
        [0xFF],
        [0x80], // lone continuation
        [0xE2, 0x28, 0xA1], // bad continuation
        [0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5, 0xED, 0xA0, 0x80, 0x65, 0x64, 0x69, 0x74, 0x65, 0x64],
    ] as [[UInt8]])
    func invalid(_ bytes: [UInt8]) {
        var validator = UTF8Validator()
        let valid = validator.validate(bytes)
        #expect(!valid)
    }

    @Test("a sequence cut at the end is valid so far but not complete")
    func incomplete() {
        var validator = UTF8Validator()
        let validSoFar = validator.validate([0x61, 0xF0, 0x9D])
        #expect(validSoFar)
        #expect(!validator.isComplete)
    }

    @Test("a long ASCII run with one bad byte in the middle of a word is caught")
    func fastPath() {
        var bytes = [UInt8](repeating: 0x41, count: 1000)
        var clean = UTF8Validator()
        let cleanValid = clean.validate(bytes)
        #expect(cleanValid)
        bytes[515] = 0xFF
        var validator = UTF8Validator()
        let valid = validator.validate(bytes)
        #expect(!valid)
    }
}
