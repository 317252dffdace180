/// Reads a fuzzer input as a sequence of small decisions followed by data.
///
/// Reading past the end gives zeros (and empty byte runs), so every input,
/// however short, is a valid instance of the target's input format.
///
/// ```swift
/// var input = FuzzInput(bytes)
/// let flags = input.byte()
/// let payload = input.rest()
/// ```
public struct FuzzInput {
    private let bytes: UnsafeRawBufferPointer
    private var offset = 0

    /// An input over `bytes` (which must outlive it).
    public init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// Bytes not read yet.
    public var remaining: Int { bytes.count - offset }

    /// The next byte, or 0 at the end.
    public mutating func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// The next two bytes, little-endian.
    public mutating func uint16() -> UInt16 {
        UInt16(byte()) | UInt16(byte()) << 8
    }

    /// The next `count` bytes, or fewer at the end.
    public mutating func bytes(_ count: Int) -> [UInt8] {
        let taken = min(count, remaining)
        defer { offset += taken }
        return Array(bytes[offset..<offset + taken])
    }

    /// A run whose length is the next byte (so 0 to 255 bytes).
    public mutating func lengthPrefixed() -> [UInt8] {
        bytes(Int(byte()))
    }

    /// Everything not read yet.
    public mutating func rest() -> [UInt8] {
        bytes(remaining)
    }
}

/// SplitMix64: a tiny deterministic generator, so one input byte can stand
/// for many decisions (where to split a stream) and a crash replays exactly.
public struct SplitMix64 {
    private var state: UInt64

    /// A generator seeded with `seed`.
    public init(seed: UInt64) {
        state = seed
    }

    /// The next 64 pseudo-random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound` (`bound` > 0).
    public mutating func next(below bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }
}

/// Where to cut a stream of `count` bytes into chunks.
public enum Splits {
    /// Up to `maximumCuts` cut offsets in `0...count`, sorted; repeats give
    /// empty chunks (a read of zero bytes), which the parser must accept.
    public static func random(count: Int, seed: UInt64, maximumCuts: Int = 24) -> [Int] {
        var generator = SplitMix64(seed: seed)
        let cuts = generator.next(below: maximumCuts + 1)
        var offsets: [Int] = []
        offsets.reserveCapacity(cuts)
        for _ in 0..<cuts { offsets.append(generator.next(below: count + 1)) }
        return offsets.sorted()
    }

    /// A cut after every byte: the most fragmented delivery.
    public static func everyByte(count: Int) -> [Int] {
        count <= 1 ? [] : Array(1..<count)
    }

    /// A fine split: after every byte for short streams (up to
    /// `everyByteUpTo`), else up to 96 random cuts, so that the cost of a run
    /// stays proportional to the number of parser states, not of bytes.
    public static func fine(count: Int, seed: UInt64, everyByteUpTo limit: Int = 192) -> [Int] {
        count <= limit ? everyByte(count: count) : random(count: count, seed: seed ^ 0xF1E, maximumCuts: 96)
    }
}
