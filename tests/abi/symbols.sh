#!/bin/sh
# Exports on purpose: what each shared library exports is exactly what its
# public headers declare with IPFSRT_API or IPFSRT_EXPERIMENTAL, each under
# its mark's version node, and every function a public header declares carries
# a mark. libipfsrt: every header but lua.h and image.h; libipfsrt-lua: those two.
# Usage: symbols.sh BUILD_DIR
set -eu
cd "$(dirname "$0")/../.."
build=${1:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0
# A declaration at the start of a line that is not marked: a type or function
# the library would keep hidden while the header promises it.
unmarked=$(grep -n '^[a-z].*(' runtime/include/ipfsrt/*.h |
    grep -v ':IPFSRT_API \|:IPFSRT_EXPERIMENTAL \|:typedef \|:struct \|:enum \|:extern \|:static ' || true)
if [ -n "$unmarked" ]; then
    echo "public declarations without IPFSRT_API:"; echo "$unmarked"; bad=1
fi
declared() { # the functions the given headers mark
    sed -n 's/^IPFSRT_\(API\|EXPERIMENTAL\) [^(]*[^a-zA-Z0-9_(]\([a-zA-Z_][a-zA-Z0-9_]*\)(.*/\2/p' "$@" | sort -u
}
exported() { # the symbols a shared library defines for others
    nm -D --defined-only "$1" | awk '$2 ~ /^[TDBRVW]$/ {sub(/@.*/, "", $3); print $3}' | sort -u
}
# NAME@@NODE for what the headers mark $1, and as exported
marked_nodes() { # mark node headers...
    mark=$1 node=$2; shift 2
    sed -n "s/^$mark [^(]*[^a-zA-Z0-9_(]\([a-zA-Z_][a-zA-Z0-9_]*\)(.*/\1@@$node/p" "$@" | sort -u
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
core_headers=$(ls runtime/include/ipfsrt/*.h | grep -v '/lua\.h$\|/image\.h$')
check "$build/libipfsrt.so" $core_headers
# shellcheck disable=SC2086
{ marked_nodes IPFSRT_API IPFSRT_1 $core_headers; marked_nodes IPFSRT_EXPERIMENTAL IPFSRT_EXPERIMENTAL_1 $core_headers; } |
    sort > "$tmp/promised"
nm -D --defined-only "$build/libipfsrt.so" | awk '$2 ~ /^[TDBRVW]$/ && $3 ~ /@@IPFSRT_/ {print $3}' | sort > "$tmp/nodes"
if ! cmp -s "$tmp/promised" "$tmp/nodes"; then
    echo "libipfsrt: names under another version node than their mark says (< promised, > built):"
    diff "$tmp/promised" "$tmp/nodes" | grep '^[<>]' || true
    bad=1
fi
echo "libipfsrt: $(grep -c '@@IPFSRT_1$' "$tmp/nodes") stable, $(grep -c '@@IPFSRT_EXPERIMENTAL_1$' "$tmp/nodes") experimental"

check "$build/libipfsrt-lua.so" runtime/include/ipfsrt/lua.h runtime/include/ipfsrt/image.h
# A C host links libipfsrt without an interpreter.
if readelf -d "$build/libipfsrt.so" | grep -q 'NEEDED.*liblua'; then
    echo "$build/libipfsrt.so needs liblua"; bad=1
fi
if nm -D "$build/libipfsrt.so" | grep -q ' lua_\| luaL_'; then
    echo "$build/libipfsrt.so refers to the Lua API"; bad=1
fi
# Nor libpng: plotting is the Lua library's.
if readelf -d "$build/libipfsrt.so" | grep -q 'NEEDED.*libpng'; then
    echo "$build/libipfsrt.so needs libpng"; bad=1
fi
exit $bad
