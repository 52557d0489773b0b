#!/bin/sh
# Every part of `make test`, in order, against a built tree (make builds what
# they need first: `make test`, or `make test-PART` for one). Each part's own
# driver is tests/PART/run.sh. Usage: tests/run.sh [PART...]
# Environment: BUILD (build), SAN (1: ASan + UBSan, thread: TSan), SAN_LIBS (the
# sanitizer runtimes a stock lua5.4 must load first), OPT (the build's
# optimization and sanitizer flags, for the embedding hosts), MAKE.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
SAN=${SAN:-}
MAKE=${MAKE:-make}
export BUILD SAN
all="layers symbols reference readme man unit fuzz-replay lua cli numpy zarr dataset python embed interop s3 mpi"
part() {
    echo "== test-$1"
    case "$1" in
    # Dependencies point down: no source includes a module of a higher layer.
    layers) sh tests/layers.sh $(sed -n "s/^LAYERS := //p" Makefile) ;;
    # Each library exports what its headers mark, under its ABI as recorded
    # (optimized builds only: sanitizers change what the debug information says).
    symbols) sh tests/abi/symbols.sh "$BUILD"
             if [ -n "$SAN" ]; then echo "abi: not checked in a sanitized build"; else sh tests/abi/check.sh "$BUILD"; fi ;;
    reference) sh tests/reference/run.sh ;;
    # The README's first five minutes as written, with build/ipfsrt as it says.
    readme) [ -x build/ipfsrt ] || $MAKE --no-print-directory all BUILD=build
            build/ipfsrt tests/readme/check.lua README.md ;;
    # The man page names each subcommand's options as its --help does, and renders.
    man) "$BUILD/ipfsrt" tests/man/check.lua runtime/ipfsrt.1 "$BUILD/ipfsrt" ;;
    unit) sh tests/unit/run.sh "$BUILD"/tests/test_* ;;
    fuzz-replay) sh tests/fuzz/run.sh $(ls tests/fuzz/fuzz_*.c | sed 's|.*/fuzz_\(.*\)\.c|\1|') ;;
    lua) SAN_LIBS="${SAN_LIBS:-}" sh tests/lua/run.sh ;;
    cli) sh tests/lua-exe/run.sh ;;
    embed) rm -rf "$BUILD/stage"
           $MAKE --no-print-directory install PREFIX="$(pwd)/$BUILD/stage" >/dev/null
           PKG_CONFIG_PATH="$(pwd)/$BUILD/stage/lib/pkgconfig" EMBED_CFLAGS="${OPT:-}" LUA_PRELOAD="${SAN_LIBS:-}" \
               sh tests/embed/run.sh ;;
    # ipfsrt.mpi under mpirun; skipped, saying so, without Open MPI.
    mpi) if ! command -v mpicc >/dev/null || ! command -v mpirun >/dev/null; then
             echo "test-mpi: SKIPPED, Open MPI not installed (scripts/deps.sh test)"
         else
             $MAKE --no-print-directory -s mpi && SAN_LIBS="$([ "$SAN" = 1 ] && echo "${SAN_LIBS:-}")" sh tests/mpi/run.sh
         fi ;;
    numpy|zarr|dataset|python|interop|s3) sh "tests/$1/run.sh" ;;
    *) echo "tests/run.sh: no part $1 (parts: $all)" >&2; exit 2 ;;
    esac
}
for p in ${*:-$all}; do part "$p"; done
