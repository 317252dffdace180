#if DEBUG
// Unoptimised builds do not specialise generics, and unspecialised generic
// code allocates (thunks, coroutine frames): allocation counts mean
// something only with -c release (`make test` runs release).
let isOptimizedBuild = false
#else
let isOptimizedBuild = true
#endif
