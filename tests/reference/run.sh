#!/bin/sh
# The per-function reference made by make (doxygen: BUILD/reference), checked:
# check.lua says what a documented header's functions lack, and which headers
# are still to document. Usage: BUILD=DIR tests/reference/run.sh
set -eu
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
lua5.4 tests/reference/check.lua "$BUILD/reference/warnings.txt" "$BUILD/reference/man/man3" runtime/include/ipfsrt/*.h
