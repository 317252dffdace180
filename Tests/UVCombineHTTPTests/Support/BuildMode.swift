#if DEBUG
// Unoptimised builds do not specialise generics, and unspecialised generic
// code allocates (thunks, coroutine frames). `make test` runs release.
let isOptimizedBuild = false
#else
let isOptimizedBuild = true
#endif
