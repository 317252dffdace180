#!/usr/bin/env bash
# Runs the fuzz targets of Fuzz/ (built by `make fuzz-build`) one after the
# other, each for FUZZ_SECONDS, and prints one line per target:
#
#   ResponseParserFuzzer  executions 1234567  exec/s 4115  corpus 812  crashes 0
#
# Usage: Fuzz/Scripts/run.sh SECONDS [TARGET...]   (from the repository root)
# With FUZZ_RUNS=N a target also stops after N executions.
#
# Each target starts from the committed seeds (Fuzz/Corpus/<target>) and a
# working corpus that grows across runs (.build-fuzz/corpus/<target>, not
# committed; libFuzzer writes new inputs only to the first folder given).
# A crash or a violated property stops the target, saves the input as
# .build-fuzz/artifacts/<target>-crash-<sha1> (replay it with
# `.build-fuzz/release/<target> <file>`), and makes the script fail.
set -uo pipefail
cd "$(dirname "$0")/../.."

seconds=${1:?usage: Fuzz/Scripts/run.sh SECONDS [TARGET...]}
shift
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(ResponseParserFuzzer ChunkedDecoderFuzzer RequestValidationFuzzer RequestWriterFuzzer
             WebSocketFrameFuzzer WebSocketInflateFuzzer)
fi
scratch=${FUZZ_SCRATCH:-.build-fuzz}
failed=0

for target in "${targets[@]}"; do
    case $target in
        Request*) dictionary=Fuzz/Dictionaries/url.dict ;;
        WebSocket*) dictionary=Fuzz/Dictionaries/websocket.dict ;;
        *) dictionary=Fuzz/Dictionaries/http.dict ;;
    esac
    mkdir -p "$scratch/corpus/$target" "$scratch/artifacts" "$scratch/logs"
    log="$scratch/logs/$target.log"
    # Swift's own backtracer would race ASan's report; libFuzzer prints the
    # stack of a Swift trap itself.
    SWIFT_BACKTRACE=enable=no timeout $((seconds + 300)) "$scratch/release/$target" \
        -max_total_time="$seconds" ${FUZZ_RUNS:+-runs=$FUZZ_RUNS} -max_len=2048 -timeout=10 -print_final_stats=1 \
        -dict="$dictionary" -artifact_prefix="$scratch/artifacts/$target-" \
        "$scratch/corpus/$target" "Fuzz/Corpus/$target" > "$log" 2>&1
    status=$?
    executions=$(awk '/stat::number_of_executed_units/ {print $2}' "$log")
    rate=$(awk '/stat::average_exec_per_sec/ {print $2}' "$log")
    corpus=$(ls "$scratch/corpus/$target" | wc -l)
    crashes=$(grep -c -E "^==[0-9]+== ?ERROR|PROPERTY VIOLATED" "$log")
    printf '%-24s executions %-10s exec/s %-6s corpus %-6s crashes %s\n' \
        "$target" "${executions:-?}" "${rate:-?}" "$corpus" "$crashes"
    if [ $status -ne 0 ] || [ "$crashes" -ne 0 ]; then
        failed=1
        echo "  $target failed (exit status $status); the end of $log:"
        grep -E "PROPERTY VIOLATED|ERROR|SUMMARY|Test unit written" -A3 "$log" | head -40 | sed 's/^/    /'
    fi
done
exit $failed
