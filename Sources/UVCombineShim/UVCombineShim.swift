// One import for code that builds both on Apple platforms and elsewhere:
// `import UVCombineShim` gives Apple's Combine where it exists and
// UVCombine (Combine's API on a libuv loop, with its Foundation side:
// @Published, ObservableObject, RunLoop/OperationQueue schedulers,
// Timer.publish, NotificationCenter.publisher) everywhere else.
//
// ```swift
// import UVCombineShim
//
// final class Model: ObservableObject {
//     @Published var count = 0
// }
// ```
#if canImport(Combine)
@_exported import Combine
#else
@_exported import UVCombine
#endif
