#!/bin/sh
# The ABI each shared library promises, against the baseline committed here
# (abidw, from Debian's abigail-tools; only types the public headers declare;
# what runtime/src headers mark IPFSRT_PRIVATE, the core's exports for its
# modules alone, is left out). Any change fails: a compatible one (an addition) until
# `make abi-baseline` records it, an incompatible one until ABI (the
# Makefile: soname and version nodes) is bumped on purpose and the baseline
# is made again. Usage: check.sh BUILD_DIR [--record LIB]
set -eu
cd "$(dirname "$0")/../.."
build=${1:-build}
supp=$(mktemp)
trap 'rm -f "$supp"' EXIT
names=$(sed -n 's/^IPFSRT_PRIVATE [^(]*[^a-zA-Z0-9_(]\([a-zA-Z_][a-zA-Z0-9_]*\)(.*/\1/p' runtime/src/*/*.h | paste -sd'|')
printf '[suppress_function]\n  symbol_name_regexp = ^(%s)$\n  drop = yes\n' "$names" > "$supp"
if [ "${2:-}" = --record ]; then
    abidw --no-corpus-path --no-comp-dir-path --headers-dir runtime/include --drop-private-types \
        --suppressions "$supp" "$build/lib$3.so" > "tests/abi/lib$3.abi"
    echo "abi: recorded tests/abi/lib$3.abi"
    exit 0
fi
tmp=$(mktemp)
trap 'rm -f "$tmp" "$supp"' EXIT
bad=0
for so in "$build"/libipfsrt*.so; do
    lib=$(basename "$so" .so)
    base=tests/abi/$lib.abi
    [ -f "$base" ] || { echo "$lib: no baseline $base: run make abi-baseline"; bad=1; continue; }
    promised=$(sed -n "1s/.* soname='\([^']*\)'.*/\1/p" "$base")
    built=$(readelf -d "$so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
    if [ "$promised" != "$built" ]; then
        echo "$lib: soname $built, the baseline's $promised: run make abi-baseline to record the new ABI"
        bad=1; continue
    fi
    rc=0
    abidiff --headers-dir2 runtime/include --drop-private-types --suppressions "$supp" "$base" "$so" > "$tmp" || rc=$?
    if [ $((rc & 8)) -ne 0 ]; then
        cat "$tmp"
        echo "$lib: an INCOMPATIBLE ABI change under soname $built: keep the old ABI, or bump ABI" \
             "(the Makefile) and run make abi-baseline"
        bad=1
    elif [ $((rc & 4)) -ne 0 ]; then
        cat "$tmp"
        echo "$lib: a compatible ABI change (above): run make abi-baseline to record it"
        bad=1
    elif [ "$rc" -ne 0 ]; then
        cat "$tmp"; echo "$lib: abidiff failed ($rc)"; bad=1
    else
        echo "$lib: the ABI of $built as recorded in $base"
    fi
done
exit $bad
