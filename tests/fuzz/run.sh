#!/bin/sh
# Each fuzz corpus replayed through its target without libFuzzer (built by
# make as BUILD/fuzz/replay_NAME; under ASan + UBSan in make asan): what
# fuzzing found stays found. Usage: BUILD=DIR tests/fuzz/run.sh NAME...
set -eu
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
for t in "$@"; do
    printf "fuzz corpus %-14s " "$t"
    "$BUILD/fuzz/replay_$t" tests/fuzz/corpus/"$t"/*
done
