#!/bin/sh
# The Python package (runtime/python/) under Debian's python3 and pytest:
# xarray, zarr and Dask reading through it. Usage: BUILD=DIR tests/python/run.sh
# (SAN=1: the sanitizer runtimes preloaded, as Python itself is not built with them)
set -eu
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
export BUILD PYTHONPATH="$BUILD/python" PYTHONDONTWRITEBYTECODE=1
if [ "${SAN:-}" = 1 ]; then
    export LD_PRELOAD="${SAN_LIBS:-}" ASAN_OPTIONS=detect_leaks=0
fi
exec timeout 900 /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/python
