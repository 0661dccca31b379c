#!/usr/bin/env bash
# Type-checks the Footprint SDK for iOS with the Swift toolchain of a machine without Xcode (Linux
# included), given an extracted iPhoneOS SDK: the FootprintWire, FootprintSQLite and Footprint
# modules (UIKit and SwiftUI adapter included, with the package's settings: Swift 6 language mode,
# ExistentialAny, iOS 15 deployment target), then the simulator tests (Tests/FootprintUIKitTests),
# every Swift file of Examples/ and the README's "Add Footprint to an iOS app" snippet against the
# Footprint module it emits. Nothing is linked or run, and nothing is written into the checkout.
#
#   usage: scripts/ios-typecheck.sh <path to iPhoneOS.sdk>      (or: make ios-typecheck SDK=...)
#
# Triples: arm64-apple-ios15.0, and arm64-apple-ios15.0-simulator when the SDK holds simulator
# interfaces (an iPhoneSimulator SDK, or TRIPLES="..." to choose).
# Environment: SWIFTC (default: swiftc on PATH), WORK (scratch folder, default
# $TMPDIR/footprint-ios-typecheck-<uid>), TRIPLES.
# Exit status: 0 when no step reports an error.
set -uo pipefail

SDK=${1:-${SDK:-}}
[ -n "$SDK" ] && [ -d "$SDK/usr/lib/swift" ] || {
  echo "usage: $0 <path to an extracted iPhoneOS .sdk>" >&2
  exit 2
}
SDK=$(cd "$SDK" && pwd)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SWIFTC=${SWIFTC:-swiftc}
WORK=${WORK:-${TMPDIR:-/tmp}/footprint-ios-typecheck-$(id -u)}
DEPLOYMENT=15.0
TOOLCHAIN=$(cd "$(dirname "$(readlink -f "$(command -v "$SWIFTC")")")/.." && pwd)

if [ -z "${TRIPLES:-}" ]; then
  TRIPLES=""
  [ -e "$SDK/usr/lib/swift/Swift.swiftmodule/arm64-apple-ios.swiftinterface" ] &&
    TRIPLES="arm64-apple-ios$DEPLOYMENT"
  [ -e "$SDK/usr/lib/swift/Swift.swiftmodule/arm64-apple-ios-simulator.swiftinterface" ] &&
    TRIPLES="$TRIPLES arm64-apple-ios$DEPLOYMENT-simulator"
  [ -n "$TRIPLES" ] || { echo "no arm64 iOS Swift interfaces in $SDK" >&2; exit 2; }
fi

# ---- A Darwin resource folder. The toolchain's own lib/swift holds its platform's module maps
#      (Dispatch, CoreFoundation), which clash with the SDK's; only the compiler shims, clang's
#      headers and the macro plugins are taken from it. Apple toolchains also ship API notes that
#      give the SDK's os and Dispatch C declarations the Swift names their overlays use; the
#      minimal set those overlays need is written here.
RES=$WORK/resource
mkdir -p "$RES/apinotes" || exit 1
ln -sfn "$TOOLCHAIN/lib/swift/shims" "$RES/shims"
ln -sfn "$(readlink -f "$TOOLCHAIN/lib/swift/clang")" "$RES/clang"
[ -d "$TOOLCHAIN/lib/swift/host" ] && ln -sfn "$TOOLCHAIN/lib/swift/host" "$RES/host"
cat >"$RES/apinotes/os.apinotes" <<'NOTES'
Name: os
Typedefs:
- Name: os_log_type_t
  SwiftName: OSLogType
- Name: os_signpost_type_t
  SwiftName: OSSignpostType
Classes:
- Name: OS_os_log
  SwiftName: OSLog
Functions:
- Name: _os_log_impl
  SwiftPrivate: true
- Name: _os_signpost_emit_with_name_impl
  SwiftPrivate: true
- Name: os_log_type_enabled
  SwiftName: 'OSLog.isEnabled(self:type:)'
NOTES
# Clang's module cache does not notice changed API notes: one cache per version of the notes.
CACHE=$WORK/cache-$(cksum <"$RES/apinotes/os.apinotes" | cut -d' ' -f1)

status=0
# Runs one compiler step: a name, then the compiler's arguments. Prints its diagnostics with
# paths relative to the checkout.
step() {
  local name=$1
  shift
  local log="$LOGS/$name.log"
  "$SWIFTC" "$@" >"$log" 2>&1
  local rc=$?
  local errors warnings
  errors=$(grep -E '^[^ ].*: error:' "$log" | sort -u | wc -l)
  warnings=$(grep -E '^[^ ].*: warning:' "$log" | sort -u | wc -l)
  [ "$rc" -ne 0 ] && [ "$errors" -eq 0 ] && errors=1 # a crash or a driver error
  echo "  $name: $errors errors, $warnings warnings (log: $log)"
  grep -E '^[^ ].*: (error|warning):' "$log" | sed "s#$ROOT/##; s#$WORK/##" | LC_ALL=C sort -u | sed 's/^/    /'
  [ "$rc" -eq 0 ] || status=1
  total=$((total + errors))
}
swift_files() { find "$@" -name '*.swift' | LC_ALL=C sort; }

# The README's snippet, as the top-level code of a main.swift.
SNIPPET=$WORK/readme/main.swift
mkdir -p "$WORK/readme"
awk '/^## Add Footprint to an iOS app/ { found = 1; next }
     found && /^```swift/ { inside = 1; next }
     inside && /^```/ { exit }
     inside { print }' "$ROOT/README.md" >"$SNIPPET"
[ -s "$SNIPPET" ] || { echo "README.md has no swift block under \"## Add Footprint to an iOS app\"" >&2; status=1; }

for triple in $TRIPLES; do
  OUT=$WORK/$triple/modules LOGS=$WORK/$triple/logs
  rm -rf "$OUT" && mkdir -p "$OUT" "$LOGS" || exit 1
  COMMON=(-target "$triple" -sdk "$SDK" -resource-dir "$RES" -module-cache-path "$CACHE"
    -swift-version 6 -enable-upcoming-feature ExistentialAny -I "$OUT"
    -I "$ROOT/Sources/CZlib" -I "$ROOT/Sources/CSQLite")
  PACKAGE=(-parse-as-library -package-name footprint -DSWIFT_PACKAGE -DDEBUG -Onone -enable-testing)
  total=0
  echo "== $triple"
  for module in FootprintWire FootprintSQLite Footprint; do
    mapfile -t files < <(swift_files "$ROOT/Sources/$module")
    # Every body checked; then the module's interface (bodies skipped) for the next ones.
    step "$module" -typecheck -continue-building-after-errors -module-name "$module" \
      "${COMMON[@]}" "${PACKAGE[@]}" "${files[@]}"
    step "$module-module" -emit-module -wmo -Xfrontend -experimental-skip-all-function-bodies \
      -module-name "$module" -emit-module-path "$OUT/$module.swiftmodule" \
      "${COMMON[@]}" "${PACKAGE[@]}" "${files[@]}"
  done
  # The simulator tests. Swift Testing is not in the iOS SDK: `#expect(` and `#require(` become
  # calls of a stand-in module (scripts/ios-typecheck/Testing.swift) and `@Test` / `@Suite` are
  # dropped (lines keep their numbers), so the tests' own code is checked against UIKit and
  # Footprint's internals (`@testable import`); Swift Testing's macros are not.
  TESTS=$WORK/$triple/FootprintUIKitTests
  rm -rf "$TESTS" && mkdir -p "$TESTS" || exit 1
  for file in "$ROOT"/Tests/FootprintUIKitTests/*.swift; do
    sed -E 's/#(expect|require)\(/\1(/g; s/@(Test|Suite)(\([^)]*\))?//g' "$file" >"$TESTS/$(basename "$file")"
  done
  step Testing -emit-module -parse-as-library -module-name Testing -emit-module-path "$OUT/Testing.swiftmodule" \
    "${COMMON[@]}" "$ROOT/scripts/ios-typecheck/Testing.swift"
  mapfile -t tests < <(swift_files "$TESTS")
  step FootprintUIKitTests -typecheck -continue-building-after-errors -parse-as-library \
    -module-name FootprintUIKitTests -package-name footprint "${COMMON[@]}" "${tests[@]}"
  mapfile -t examples < <(swift_files "$ROOT/Examples")
  if [ "${#examples[@]}" -gt 0 ]; then
    step Examples -typecheck -continue-building-after-errors -parse-as-library \
      -module-name FootprintExample "${COMMON[@]}" "${examples[@]}"
  fi
  step README -typecheck -module-name ReadmeSnippet "${COMMON[@]}" "$SNIPPET"
  echo "== $triple: $total errors"
done
exit $status
