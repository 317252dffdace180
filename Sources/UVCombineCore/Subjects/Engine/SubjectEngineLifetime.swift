/// Owns a subject engine's storage and frees it when the engine dies.
///
/// Why a separate, non-generic type with the deinitialiser, and the work
/// in a closure: deinitialisers run unspecialised. A generic engine with
/// its own `deinit` made every owner's deinitialiser look up the engine's
/// type metadata at run time, and the engine's deinitialiser the
/// storage's (some 340 instructions each, on every subject's or share's
/// death). This type names no generic parameter, so destroying the engine
/// (whose other fields have a fixed layout) needs no metadata; the closure
/// is formed in the engine's initialiser, specialised where the owner is
/// created, and captures nothing.
@usableFromInline
internal struct SubjectEngineLifetime: ~Copyable {
    @usableFromInline let storage: UnsafeMutableRawPointer
    @usableFromInline let teardown: (UnsafeMutableRawPointer) -> Void

    @inlinable
    init(storage: UnsafeMutableRawPointer, teardown: @escaping (UnsafeMutableRawPointer) -> Void) {
        self.storage = storage
        self.teardown = teardown
    }

    deinit {
        teardown(storage)
    }
}
