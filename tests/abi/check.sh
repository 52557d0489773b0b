#!/bin/sh
# The ABI each shared library promises, against the baseline committed here
# (abidw, from Debian's abigail-tools; only types the public headers declare).
# Any change fails: a compatible one (an addition) until `make abi-baseline`
# records it, an incompatible one until the soname and the version node are
# bumped on purpose (SONAME/LUA_SONAME in the Makefile, runtime/*.map) and the
# baseline is made again. Usage: check.sh BUILD_DIR
set -eu
cd "$(dirname "$0")/../.."
build=${1:-build}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
bad=0
for lib in libipfsrt libipfsrt-lua; do
    base=tests/abi/$lib.abi
    so=$build/$lib.so
    promised=$(sed -n "1s/.* soname='\([^']*\)'.*/\1/p" "$base")
    built=$(readelf -d "$so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
    if [ "$promised" != "$built" ]; then
        echo "$lib: soname $built, the baseline's $promised: run make abi-baseline to record the new ABI"
        bad=1; continue
    fi
    rc=0
    abidiff --headers-dir2 runtime/include --drop-private-types "$base" "$so" > "$tmp" || rc=$?
    if [ $((rc & 8)) -ne 0 ]; then
        cat "$tmp"
        echo "$lib: an INCOMPATIBLE ABI change under soname $built: keep the old ABI, or bump the soname" \
             "and the version node and run make abi-baseline"
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
