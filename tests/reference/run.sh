#!/bin/sh
# The C reference, checked: doxygen reads the headers' comments (its own man
# output is thrown away: runtime/man3.lua makes the pages) and must warn
# about nothing (every function's parameters and return, every struct field,
# enum value and macro documented); check.lua says what a function lacks
# (@errors, @owner) and that each function, options struct and enum has its
# page among those runtime/man3.lua made (BUILD/man3), each rendering without
# a troff warning. Usage: BUILD=DIR tests/reference/run.sh
set -eu
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
out="$BUILD/reference"
rm -rf "$out" && mkdir -p "$out"
{ cat tests/reference/Doxyfile; echo "OUTPUT_DIRECTORY = $out"; echo "WARN_LOGFILE = $out/warnings.txt"; } | doxygen -
for page in "$BUILD"/man3/*.3; do
    groff -man -Tutf8 -ww -z "$page" 2>&1 | sed "s|^|$page: |"
done > "$out/troff.txt"
lua5.4 tests/reference/check.lua "$out/warnings.txt" "$out/troff.txt" "$BUILD/man3" runtime/include/ipfsrt/*.h
