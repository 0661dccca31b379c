#!/usr/bin/env bash
# Runs `swift test --skip-build ARGS…`, keeping its whole output in .build/test-logs/, and when
# the run fails, ends with what explains the failure, so that the last lines of a CI log say it:
# the crash report's head (which thread, which frames), the failed tests and the tests that had
# started but not finished when the process died.
#
#   scripts/swift-test.sh NAME [swift test arguments…]
set -uo pipefail
name="$1"
shift
swift="${SWIFT:-swift}"
logs=".build/test-logs"
mkdir -p "$logs"
log="$logs/$name.log"

"$swift" test --skip-build "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
[ "$status" -eq 0 ] && exit 0

{
    echo
    echo "==== swift test ($name) failed with status $status; whole output: $log"
    echo "---- failed tests"
    grep -E '^✘ (Test|Suite) ' "$log" | head -40
    echo "---- started, never finished (running when the process ended)"
    # Swift Testing prints "◇ Test NAME started." and later one "✔/✘/➜ Test NAME …" line for it;
    # a name that started more often than it ended was running (names repeat across suites).
    awk '/^◇ Test case passing / || /^◇ Test run started\.$/ { next }
        /^◇ Test .* started\.$/ { name = $0; sub(/^[^ ]+ Test /, "", name); sub(/ started\.$/, "", name); open[name]++ }
        /^(✔|✘|➜) Test / && !/^[^ ]+ Test case passing / && !/ recorded an issue/ {
            name = $0; sub(/^[^ ]+ Test /, "", name)
            sub(/ with [0-9]+ test cases? (passed|failed).*$/, "", name)
            sub(/ (passed|failed|skipped).*$/, "", name); open[name]-- }
        END { for (name in open) if (open[name] > 0) print name }' "$log" | head -40
    echo "---- crash report head"
    # The first fatal message, and the crashed thread's frames from the runtime's backtrace.
    for pattern in 'Program crashed|Fatal error|Simultaneous accesses|SWIFT TASK CONTINUATION MISUSE|double free|corrupted|Assertion .* failed' \
        '^Thread [0-9]+ .*crashed:$'; do
        grep -n -m1 -E "$pattern" "$log" | cut -d: -f1 |
            while read -r line; do sed -n "$((line > 5 ? line - 5 : 1)),$((line + 45))p" "$log"; done
    done
    echo "==== end of the failure summary ($name)"
} >&2
exit "$status"
