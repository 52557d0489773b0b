#!/bin/sh
# `make fuzz`: libFuzzer on each target given (built by make under
# build-fuzz/fuzz/ with clang), each starting from its corpus in
# tests/fuzz/corpus/NAME; new finds go to build-fuzz/corpus/NAME.
# Usage: FUZZ_SECONDS=60 tests/fuzz/fuzz.sh NAME...
set -eu
cd "$(dirname "$0")/../.."
for t in "$@"; do
    mkdir -p "build-fuzz/corpus/$t"
    echo "== fuzz_$t for ${FUZZ_SECONDS:-60} s"
    "build-fuzz/fuzz/fuzz_$t" -max_total_time="${FUZZ_SECONDS:-60}" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
        "build-fuzz/corpus/$t" "tests/fuzz/corpus/$t"
done
