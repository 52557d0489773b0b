#!/bin/sh
# ipfsrt.mpi under mpirun against a local gateway (tests/mpi/mpi_spec.lua),
# once `make mpi` has built the module; skipped, saying so, without Open MPI.
# Open MPI's own allocations outlive MPI_Finalize, so leak reports are off for
# these runs (ASan still checks every access). Containers often forbid the
# cross-process reads Open MPI's shared-memory transport tries first: it is
# told not to. Usage: BUILD=DIR [SAN_LIBS=...] tests/mpi/run.sh
set -eu
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
IPFSRT_BUILD=$BUILD IPFSRT_SAN_LIBS=${SAN_LIBS:-} ASAN_OPTIONS=detect_leaks=0 \
    OMPI_MCA_btl_vader_single_copy_mechanism=none \
    "$BUILD/ipfsrt" /usr/bin/busted -o utfTerminal tests/mpi/mpi_spec.lua
