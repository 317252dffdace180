// The `uvcombine` executable: `uvcombine demo [--fast]` runs the seed
// scenarios, `uvcombine fetch [options] URL` is a small curl, `uvcombine ws URL`
// a WebSocket client for scripts. The logic lives in other files: top-level variables in
// main.swift belong to the main actor under Swift 6.
#if canImport(Glibc)
import Glibc
#endif

exit(CommandLineTool.run(Array(CommandLine.arguments.dropFirst())))
