#!/bin/sh
# Every benchmark of `make bench`, in turn (each scenario says what it
# measures and prints medians and ratios measured side by side).
# Usage: BUILD=DIR scripts/bench/run.sh (the helpers built by make bench)
set -eu
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
exe=$BUILD/ipfsrt
out=$BUILD/bench
export IPFSRT_EXE="$exe"
"$exe" scripts/bench/codecs.lua "$out/codec_bench"
"$exe" scripts/bench/zarr_series.lua
"$exe" scripts/bench/datasets.lua --dir "$out" --json "$out/datasets.json" --svg "$out/datasets.svg"
[ -d tests/s3/node_modules ] || npm ci --prefix tests/s3 --no-audit --no-fund --loglevel=error
"$exe" scripts/bench/s3.lua --dir "$out" --json "$out/s3.json"
"$exe" scripts/bench/car_verify.lua
"$exe" scripts/bench/ipns.lua
"$exe" scripts/bench/unixfs_pack.lua
"$exe" scripts/bench/versions.lua 5 "$out"
"$exe" scripts/bench/serve.lua
"$exe" scripts/bench/fetch.lua
"$exe" scripts/bench/transfer.lua
"$exe" scripts/bench/many.lua
"$exe" scripts/bench/proxy_load.lua --dir "$out"
"$exe" scripts/bench/ndarray.lua
"$exe" scripts/bench/toolkit.lua --dir "$out" --json "$out/toolkit.json"
"$exe" scripts/bench/python_batch.lua --dir "$out"
"$exe" scripts/bench/peers.lua --dir "$out" --runs 3 --rtts 0,20 \
    --clients ipfsrt-verified,ipfsrt-refs,ipfsrt-refs-256k,ipfsrt-ncz,xarray-h5netcdf \
    --scenarios open,spatial,timeseries,fullfield,bulk --total yes
# the main job's patterns beside xarray + fsspec at 20 and 80 ms, over HTTP/2
# and HTTP/1.1 (TLS), every connection sharing one 400 Mbit/s link each way
"$exe" scripts/bench/peers.lua --dir "$out" --runs 3 --rtts 20,80 --network https,https-h1 \
    --clients ipfsrt-verified,ipfsrt-plain,xarray,xarray-ipfsrt \
    --scenarios open,spatial,timeseries,fullfield,bulk,weighted --json "$out/peers-network.json"
if command -v mpirun >/dev/null && command -v mpicc >/dev/null; then
    make --no-print-directory -s mpi BUILD="$BUILD"
    "$exe" scripts/bench/mpi_scale.lua --dir "$out" --json "$out/mpi.json"
else
    echo "mpi_scale: SKIPPED, Open MPI not installed"
fi
