#!/bin/sh
# ipfsrt.ndarray against Debian's numpy: the same random cases through both
# (views, arithmetic, orders over three seeds; sums; operators).
# Usage: BUILD=DIR tests/numpy/run.sh
set -eu
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
exe=$BUILD/ipfsrt
for seed in 1 2 3; do
    for part in views math order; do
        "$exe" "tests/numpy/$part.lua" "$BUILD/numpy-$part.json" "$seed" >/dev/null
        /usr/bin/python3 "tests/numpy/$part.py" "$BUILD/numpy-$part.json"
    done
done
"$exe" tests/numpy/sums.lua "$BUILD/numpy-sums.json"
/usr/bin/python3 tests/numpy/sums.py "$BUILD/numpy-sums.json"
"$exe" tests/numpy/ops.lua "$BUILD/numpy-ops.json" >/dev/null
/usr/bin/python3 tests/numpy/ops.py "$BUILD/numpy-ops.json"
