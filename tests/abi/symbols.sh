#!/bin/sh
# Exports on purpose: what each shared library exports is exactly what its
# public headers declare with IPFSRT_API, and every function a public header
# declares carries the mark. libipfsrt: every header but lua.h; libipfsrt-lua:
# lua.h. Usage: symbols.sh BUILD_DIR
set -eu
cd "$(dirname "$0")/../.."
build=${1:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0
# A declaration at the start of a line that is not marked: a type or function
# the library would keep hidden while the header promises it.
unmarked=$(grep -n '^[a-z].*(' runtime/include/ipfsrt/*.h |
    grep -v ':IPFSRT_API \|:typedef \|:struct \|:enum \|:extern \|:static ' || true)
if [ -n "$unmarked" ]; then
    echo "public declarations without IPFSRT_API:"; echo "$unmarked"; bad=1
fi
declared() { # the functions the given headers mark
    sed -n 's/^IPFSRT_API [^(]*[^a-zA-Z0-9_(]\([a-zA-Z_][a-zA-Z0-9_]*\)(.*/\1/p' "$@" | sort -u
}
exported() { # the symbols a shared library defines for others
    nm -D --defined-only "$1" | awk '$2 ~ /^[TDBRVW]$/ {sub(/@.*/, "", $3); print $3}' | sort -u
}
check() { # library, headers...
    lib=$1; shift
    declared "$@" > "$tmp/declared"
    exported "$lib" > "$tmp/exported"
    extra=$(comm -13 "$tmp/declared" "$tmp/exported")
    missing=$(comm -23 "$tmp/declared" "$tmp/exported")
    [ -z "$extra" ] || { echo "$lib exports what no public header declares:"; echo "$extra"; bad=1; }
    [ -z "$missing" ] || { echo "$lib lacks what its headers declare:"; echo "$missing"; bad=1; }
    echo "$lib: $(wc -l < "$tmp/exported") symbols, each declared in a public header"
}
check "$build/libipfsrt.so" $(ls runtime/include/ipfsrt/*.h | grep -v '/lua\.h$')
check "$build/libipfsrt-lua.so" runtime/include/ipfsrt/lua.h
# A C host links libipfsrt without an interpreter.
if readelf -d "$build/libipfsrt.so" | grep -q 'NEEDED.*liblua'; then
    echo "$build/libipfsrt.so needs liblua"; bad=1
fi
if nm -D "$build/libipfsrt.so" | grep -q ' lua_\| luaL_'; then
    echo "$build/libipfsrt.so refers to the Lua API"; bad=1
fi
exit $bad
