#!/bin/sh
# Exports on purpose: each shared library exports exactly what its public
# headers declare with IPFSRT_API or IPFSRT_EXPERIMENTAL, each under its mark's
# version node, and every function a public header declares carries a mark;
# the core adds what runtime/src headers mark IPFSRT_PRIVATE (its modules'
# use), under IPFSRT_PRIVATE_N. The core needs no Lua, libpng, microhttpd,
# HDF5, NetCDF, expat or yajl, one crypto library, and at most 10 libraries.
# Usage: symbols.sh BUILD_DIR
set -eu
cd "$(dirname "$0")/../.."
build=${1:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0
abi=$(sed -n 's/^ABI := //p' Makefile)
h=runtime/include/ipfsrt
# A declaration at the start of a line that is not marked: a type or function
# the library would keep hidden while the header promises it.
unmarked=$(grep -n '^[a-z].*(' $h/*.h |
    grep -v ':IPFSRT_API \|:IPFSRT_EXPERIMENTAL \|:typedef \|:struct \|:enum \|:extern \|:static ' || true)
if [ -n "$unmarked" ]; then
    echo "public declarations without IPFSRT_API:"; echo "$unmarked"; bad=1
fi
nodes() { # NODE_PREFIX headers... [-- internal headers...]: NAME@@NODE for every marked function
    node=$1; shift
    public="" internal=""
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do public="$public $1"; shift; done
    [ $# -gt 0 ] && shift && internal="$*"
    { # shellcheck disable=SC2086
      sed -n "s/^IPFSRT_API [^(]*[^a-zA-Z0-9_(]\([a-zA-Z_][a-zA-Z0-9_]*\)(.*/\1@@${node}_$abi/p" $public
      # shellcheck disable=SC2086
      sed -n "s/^IPFSRT_EXPERIMENTAL [^(]*[^a-zA-Z0-9_(]\([a-zA-Z_][a-zA-Z0-9_]*\)(.*/\1@@${node}_EXPERIMENTAL_$abi/p" $public
      # shellcheck disable=SC2086
      [ -z "$internal" ] || sed -n "s/^IPFSRT_PRIVATE [^(]*[^a-zA-Z0-9_(]\([a-zA-Z_][a-zA-Z0-9_]*\)(.*/\1@@${node}_PRIVATE_$abi/p" $internal
    } | sort -u
}
check() { # library node headers...: what it exports, under which node, is what they mark
    lib=$1; shift
    nodes "$@" > "$tmp/promised"
    nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | sort -u > "$tmp/built"
    if ! cmp -s "$tmp/promised" "$tmp/built"; then
        echo "$lib: exports other than its headers mark (< marked, > built):"
        diff "$tmp/promised" "$tmp/built" | grep '^[<>]' || true
        bad=1
    fi
    echo "$lib: $(grep -c "@@${1}_$abi\$" "$tmp/built" || true) stable, $(grep -c "_EXPERIMENTAL_$abi\$" "$tmp/built" || true)" \
         "experimental, $(grep -c "_PRIVATE_$abi\$" "$tmp/built" || true) private, each marked in a header"
}
module_headers() { sed -n "s/^$1_HEADERS := //p" Makefile | sed "s|[a-z0-9_][a-z0-9_]*|$h/&.h|g"; }
all_module_headers=""
for m in server s3 netcdf; do all_module_headers="$all_module_headers $(module_headers $m)"; done
core_headers=""
for f in $h/*.h; do
    case " $all_module_headers $h/lua.h $h/image.h " in *" $f "*) ;; *) core_headers="$core_headers $f" ;; esac
done
# shellcheck disable=SC2086
check "$build/libipfsrt.so" IPFSRT $core_headers -- runtime/src/*/*.h
for m in server s3 netcdf; do
    [ -f "$build/libipfsrt-$m.so" ] || continue
    # shellcheck disable=SC2046
    check "$build/libipfsrt-$m.so" "IPFSRT_$(echo $m | tr a-z A-Z)" $(module_headers $m)
done
check "$build/libipfsrt-lua.so" IPFSRT_LUA $h/lua.h $h/image.h

# The core a C host links: small, and none of the modules' libraries
# (a sanitized build's own runtimes are not the core's; glibc's own parts,
# libc, libm, libresolv, come with every C program and are not counted).
needed=$(readelf -d "$build/libipfsrt.so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | grep -v '^lib[at]\?[a-z]*san\.so')
others=$(echo "$needed" | grep -v '^lib\(c\|m\|resolv\|pthread\|dl\|rt\)\.so')
count=$(echo "$others" | wc -l)
echo "libipfsrt.so needs $count libraries besides glibc's: $(echo $others)"
[ "$count" -le 10 ] || { echo "libipfsrt.so needs more than 10 libraries besides glibc's"; bad=1; }
for lib in liblua libpng libmicrohttpd libhdf5 libnetcdf libexpat libyajl; do
    if echo "$needed" | grep -q "^$lib"; then echo "libipfsrt.so needs $lib"; bad=1; fi
done
crypto=$(echo "$needed" | grep -c '^libcrypto\|^libmbedcrypto' || true)
[ "$crypto" = 1 ] || { echo "libipfsrt.so needs $crypto crypto libraries, not one"; bad=1; }
if nm -D "$build/libipfsrt.so" | grep -q ' lua_\| luaL_'; then echo "libipfsrt.so refers to the Lua API"; bad=1; fi
exit $bad
