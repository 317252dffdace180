#!/usr/bin/env bash
# Manual check (not part of .ci/run): builds pointfreeco/combine-schedulers
# 1.2.2, sources and tests unchanged, against this checkout of UVCombine and
# runs its test suite. See docs/combine-compatibility.md, "Third-party
# Combine code".
#
# How: its sources say `#elseif canImport(OpenCombineShim)` (and one file
# `canImport(OpenCombine)`, naming `OpenCombine.Scheduler`), so two one-file
# targets of ours named OpenCombine and OpenCombineShim that re-export
# UVCombineShim make them compile against UVCombine unchanged. Its own Package.swift needs
# tools 6.4, so a scratch package (tools 6.1) points at its folders with
# `path:`. Nothing of theirs is copied into this repository: the clone and
# the scratch package live in $WORK (default /tmp/cs-check).
#
# Usage: scripts/check-combine-schedulers.sh [swift test arguments...]
# Exits 1 when their UISchedulerTests.testRunsOnMain loses its own race
# (it does in most full runs here; the doc explains why it is theirs).
# Env: MIRROR (default /opt/swift-packages, a local mirror of the repos),
#      WORK (default /tmp/cs-check).
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
mirror="${MIRROR:-/opt/swift-packages}"
work="${WORK:-/tmp/cs-check}"

mkdir -p "$work"
if [ ! -d "$work/combine-schedulers" ]; then
    git clone -q -b 1.2.2 "$mirror/pointfreeco/combine-schedulers.git" "$work/combine-schedulers"
fi

for shim in OpenCombine OpenCombineShim; do
    mkdir -p "$work/Shim/$shim"
    cat > "$work/Shim/$shim/$shim.swift" <<'SWIFT'
// Stands in for OpenCombine's module of this name: UVCombine instead.
@_exported import UVCombineShim
SWIFT
done

cat > "$work/Package.swift" <<SWIFT
// swift-tools-version: 6.1
import PackageDescription

let upcoming: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InferIsolatedConformances"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "cs-check",
    dependencies: [
        .package(path: "$repo"),
        .package(url: "$mirror/pointfreeco/swift-concurrency-extras.git", exact: "1.4.3"),
        .package(url: "$mirror/pointfreeco/xctest-dynamic-overlay.git", exact: "1.13.1"),
    ],
    targets: [
        .target(
            name: "OpenCombine",
            dependencies: [.product(name: "UVCombineShim", package: "$(basename "$repo")")],
            path: "Shim/OpenCombine"
        ),
        .target(
            name: "OpenCombineShim",
            dependencies: [.product(name: "UVCombineShim", package: "$(basename "$repo")")],
            path: "Shim/OpenCombineShim"
        ),
        .target(
            name: "CombineSchedulers",
            dependencies: [
                "OpenCombine",
                "OpenCombineShim",
                .product(name: "ConcurrencyExtras", package: "swift-concurrency-extras"),
                .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
            ],
            path: "combine-schedulers/Sources/CombineSchedulers",
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "CombineSchedulersTests",
            dependencies: ["CombineSchedulers"],
            path: "combine-schedulers/Tests/CombineSchedulersTests",
            swiftSettings: upcoming
        ),
    ],
    swiftLanguageModes: [.v6]
)
SWIFT

cd "$work"
# UVCombine's own remote dependencies, from the same mirror.
for dep in apple/swift-http-types swiftlang/swift-docc-plugin swiftlang/swift-docc-symbolkit; do
    swift package config set-mirror --original "https://github.com/$dep" --mirror "$mirror/$dep.git"
done
swift build --build-tests
swift test --skip-build "$@"
