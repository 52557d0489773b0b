#!/bin/sh
# `make install`: the executable, the libraries (core, modules, Lua) with
# their headers and pkg-config files, the man pages (ipfsrt(1), and the C
# reference runtime/man3.lua made), the Lua modules where Lua looks for them,
# the named policies and the examples. The Makefile passes what it
# knows in the environment (BUILD PREFIX DESTDIR VERSION ABI LIBNAMES
# CORE_PKGS CORE_PRIVATE and each module's M_PKGS M_PRIVATE M_HEADERS).
set -eu
cd "$(dirname "$0")/.."
root="${DESTDIR:-}$PREFIX"
lib=$root/lib
install -d "$root/bin" "$lib/pkgconfig" "$root/include/ipfsrt" "$lib/lua/5.4" "$root/share/lua/5.4" \
    "$root/share/ipfsrt" "$root/share/doc/ipfsrt" "$root/share/man/man1" "$root/share/man/man3"
install -m 755 "$BUILD/ipfsrt" "$root/bin/ipfsrt"
install -m 644 runtime/ipfsrt.1 "$root/share/man/man1/ipfsrt.1"
install -m 644 "$BUILD"/man3/*.3 "$root/share/man/man3/"
for l in $LIBNAMES; do
    install -m 644 "$BUILD/lib$l.a" "$lib/"
    install -m 755 "$BUILD/lib$l.so" "$lib/lib$l.so.$ABI"
    ln -sf "lib$l.so.$ABI" "$lib/lib$l.so"
done
install -m 755 "$BUILD/ipfsrt.so" "$lib/lua/5.4/ipfsrt.so"
# The Python package in lib/python3/dist-packages, with its dist-info (the
# fsspec entry points) written for the files installed. Debian's python3 reads
# that folder under /usr only; under any other prefix (/usr/local) it reads
# lib/python3.X/dist-packages, where ipfsrt.pth names the first.
python=${PYTHON:-/usr/bin/python3}
site=$lib/python3/dist-packages
versioned=$lib/$("$python" -c 'import sys; print("python%d.%d" % sys.version_info[:2])')/dist-packages
rm -rf "$site/ipfsrt" "$site"/ipfsrt-*.dist-info
install -d "$site/ipfsrt" "$versioned"
install -m 644 "$BUILD"/python/ipfsrt/*.py "$site/ipfsrt/"
install -m 755 "$BUILD"/python/ipfsrt/_ipfsrt*.so "$site/ipfsrt/"
"$python" runtime/python/dist_info.py "$site" "$VERSION"
[ "$PREFIX" = /usr ] || echo "$PREFIX/lib/python3/dist-packages" > "$versioned/ipfsrt.pth"
if [ -f "$BUILD/lua/ipfsrt/mpi_core.so" ]; then
    install -d "$lib/lua/5.4/ipfsrt" && install -m 755 "$BUILD/lua/ipfsrt/mpi_core.so" "$lib/lua/5.4/ipfsrt/"
fi
install -m 644 runtime/include/ipfsrt.h "$root/include/ipfsrt.h"
install -m 644 runtime/include/ipfsrt/*.h "$root/include/ipfsrt/"
rm -rf "$root/share/lua/5.4/ipfsrt" "$root/share/ipfsrt/policies" "$root/share/ipfsrt/examples"
cp -r lua/ipfsrt "$root/share/lua/5.4/"
cp -r scripts/policies scripts/examples "$root/share/ipfsrt/"
install -m 644 LICENSE README.md CONTRIBUTING.md "$root/share/doc/ipfsrt/"
for d in lua runtime scripts/policies scripts/bench tests; do
    install -m 644 "$d/README.md" "$root/share/doc/ipfsrt/$(echo "$d" | tr / -).md"
done

# pkg-config: NAME DESCRIPTION REQUIRES(public) DEPS(private packages) PRIVATE_LIBS [EXTRA...]
pc() {
    name=$1 desc=$2 requires=$3 deps=$4 private=$5
    shift 5
    {
        echo "prefix=$PREFIX"
        echo "libdir=\${prefix}/lib"
        echo "includedir=\${prefix}/include"
        echo "# Linked statically (with the system's libraries shared: Debian has no static"
        echo "# libldap for curl), this archive, those of Requires after it, then:"
        echo "#   \$(pkg-config --libs \$(pkg-config --variable=deps $name)) \$(pkg-config --variable=privatelibs $name)"
        echo "staticlib=\${libdir}/lib$name.a"
        echo "deps=$deps"
        echo "privatelibs=$private"
        for line in "$@"; do echo "$line"; done
        echo
        echo "Name: $name"
        echo "Description: $desc"
        echo "Version: $VERSION"
        [ -z "$requires" ] || echo "Requires: $requires"
        [ -z "$deps" ] || echo "Requires.private: $deps"
        echo "Libs: -L\${libdir} -l$name"
        [ -z "$private" ] || echo "Libs.private: $private"
        echo "Cflags: -I\${includedir}"
    } > "$lib/pkgconfig/$name.pc"
}
pc ipfsrt "Verified reading of content-addressed (IPFS) data: the core C library" "" "$CORE_PKGS" "$CORE_PRIVATE"
modules="" lua_deps=""
for l in $LIBNAMES; do
    case "$l" in ipfsrt|ipfsrt-lua) continue ;; esac
    m=${l#ipfsrt-}
    eval "pkgs=\${${m}_PKGS:-} private=\${${m}_PRIVATE:-} headers=\${${m}_HEADERS:-}"
    pc "$l" "ipfsrt's $m module (ipfsrt/$(echo "$headers" | sed 's| |.h, ipfsrt/|g').h, experimental)" \
        "ipfsrt = $VERSION" "$pkgs" "$private"
    modules="$modules, $l = $VERSION"
done
pc ipfsrt-lua "Verified reading of content-addressed (IPFS) data: the Lua 5.4 module and scripts" \
    "ipfsrt = $VERSION$modules, lua5.4" "lua5.4 libpng" "" \
    "luadir=\${prefix}/share/lua/5.4" "cmoddir=\${prefix}/lib/lua/5.4" "policydir=\${prefix}/share/ipfsrt/policies"
