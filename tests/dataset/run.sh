#!/bin/sh
# ipfsrt.dataset against Debian's xarray on the OISST-like sample (10 days),
# on CF cases (calendars, _Unsigned, missing values, label slices, refusals),
# the analyses of lua/README.md (60 days), the toolkit's cases, and
# groupby/resample/rolling cases in four calendars; what ipfsrt writes read
# back by xarray; the same bits on 1 and 3 decoding threads.
# Usage: BUILD=DIR tests/dataset/run.sh
set -eu
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
exe=$BUILD/ipfsrt
"$exe" scripts/sample/oisst.lua "$BUILD/sample-10" --days 10 2>/dev/null
/usr/bin/python3 tests/dataset/with_xarray.py "$BUILD/sample-10" "$BUILD/sample-10.json"
rm -rf "$BUILD/sample-10-out"
"$exe" tests/dataset/check.lua "$BUILD/sample-10" "$BUILD/sample-10.json" "$BUILD/sample-10-out"
/usr/bin/python3 tests/dataset/readback.py "$BUILD/sample-10" "$BUILD/sample-10-out"
/usr/bin/python3 tests/dataset/toolkit.py "$BUILD/sample-10" "$BUILD/toolkit.json"
"$exe" tests/dataset/toolkit_check.lua "$BUILD/sample-10" "$BUILD/toolkit.json"
IPFSRT_THREADS=1 "$exe" tests/dataset/digests.lua "$BUILD/sample-10" > "$BUILD/digests-1.txt"
IPFSRT_THREADS=3 "$exe" tests/dataset/digests.lua "$BUILD/sample-10" > "$BUILD/digests-3.txt"
cmp "$BUILD/digests-1.txt" "$BUILD/digests-3.txt"
echo "the same bits on 1 and 3 decoding threads"
rm -rf "$BUILD/cf-cases"
/usr/bin/python3 tests/dataset/cf_cases.py "$BUILD/cf-cases" "$BUILD/cf-cases.json"
"$exe" tests/dataset/cf_check.lua "$BUILD/cf-cases" "$BUILD/cf-cases.json"
"$exe" scripts/sample/oisst.lua "$BUILD/sample-60" --days 60 2>/dev/null
rm -rf "$BUILD/analyses"
/usr/bin/python3 tests/dataset/analyses.py lua/README.md "$BUILD/sample-60" "$BUILD/analyses/python" "$BUILD/analyses.json"
"$exe" tests/dataset/analyses.lua lua/README.md "$BUILD/sample-60" "$BUILD/analyses/lua" "$BUILD/analyses.json"
rm -rf "$BUILD/groups"
/usr/bin/python3 tests/dataset/groups.py "$BUILD/groups" "$BUILD/groups.json"
"$exe" tests/dataset/groups_check.lua "$BUILD/groups" "$BUILD/groups.json"
