// The entry point SwiftPM links as `main`; it runs libFuzzer's driver on
// `LLVMFuzzerTestOneInput` (see FuzzDriver.swift).
import FuzzSupport

FuzzDriver.run(fuzzOneInput)
