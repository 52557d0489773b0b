# ipfsrt: configuration, sources, libraries, the executable, install. The
# tests are driven by tests/run.sh, the benchmarks by scripts/bench/run.sh,
# the Debian packages installed by scripts/deps.sh; `make help` lists targets.

PREFIX ?= /usr/local
BUILD ?= build
HASH ?= openssl
SAN ?=
CC ?= cc
# The modules built beside the core (each a library of its own, on it).
MODULES ?= server s3 netcdf

# Layers, lowest first, the core's then the modules' (tests/layers.sh checks).
LAYERS := base ndarray codec image multiformats ipld ipns store http car unixfs client zarr s3 netcdf refs server
CORE_LAYERS := $(filter-out s3 netcdf refs server,$(LAYERS))
server_DIRS := server
server_PKGS := libmicrohttpd libarchive
s3_DIRS := s3
s3_PKGS := expat
netcdf_DIRS := netcdf refs
netcdf_PKGS := hdf5 netcdf yajl
netcdf_PRIVATE := -lhdf5_hl
# Each module's public headers (its version script, pkg-config file and ABI).
server_HEADERS := server
s3_HEADERS := s3
netcdf_HEADERS := netcdf refs

# One hash backend per build (ipfsrt/hash.h): OpenSSL's libcrypto or mbedTLS.
# IPNS signatures: Ed25519 through libsodium (twice OpenSSL 3.0's speed), RSA
# through libcrypto, whichever the hash backend.
$(if $(filter openssl mbedtls,$(HASH)),,$(error HASH must be openssl or mbedtls))
CORE_PKGS := libcurl libcjson libzstd zlib blosc liblz4 libcrypto libsodium
CORE_PRIVATE := $(if $(filter mbedtls,$(HASH)),-lmbedcrypto) -lbz2 -lresolv -lm -pthread
HASH_DEFS := $(if $(filter openssl,$(HASH)),-DIPFSRT_HAVE_OPENSSL)
LUA_PKGS := lua5.4 libpng
pkgs = $(shell pkg-config $(1) $(2) 2>/dev/null)
ALL_PKGS := $(CORE_PKGS) $(LUA_PKGS) $(foreach m,$(MODULES),$($(m)_PKGS))
CORE_LIBS := $(call pkgs,--libs,$(CORE_PKGS)) $(CORE_PRIVATE)
$(foreach m,$(MODULES),$(eval $(m)_LIBS := $(call pkgs,--libs,$($(m)_PKGS)) $($(m)_PRIVATE)))
ALL_LIBS := $(call pkgs,--libs,$(LUA_PKGS)) $(foreach m,$(MODULES),$($(m)_LIBS)) $(CORE_LIBS)

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wvla
ifeq ($(SAN),1)
OPT := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
# A stock lua5.4 loading the sanitized module needs the sanitizer runtimes first.
SAN_LIBS := $(shell $(CC) -print-file-name=libasan.so) $(shell $(CC) -print-file-name=libubsan.so)
else ifeq ($(SAN),thread)
# The n-d array loops' ifunc clones resolve before TSan's runtime is up.
OPT := -O1 -g -fsanitize=thread -fno-omit-frame-pointer -DIPFSRT_NO_CLONES
else ifeq ($(SAN),fuzz)
OPT := -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
else
OPT := -O2 -g
endif
# Hidden by default: a library exports what a header marks (IPFSRT_API,
# IPFSRT_EXPERIMENTAL; IPFSRT_PRIVATE for the modules' use of the core).
CFLAGS_ALL := -pthread -std=c11 -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L -DIPFSRT_EXPERIMENTAL_API $(OPT) $(WARN) \
             -fPIC -fvisibility=hidden -Iruntime/include -Iruntime/src $(HASH_DEFS) $(call pkgs,--cflags,$(ALL_PKGS)) \
             $(foreach m,$(MODULES),-DIPFSRT_WITH_$(shell echo $(m) | tr a-z A-Z)) \
             -DIPFSRT_LUADIR='"$(PREFIX)/share/lua/5.4"' -DIPFSRT_POLICYDIR='"$(PREFIX)/share/ipfsrt/policies"' $(CFLAGS)
LDFLAGS_ALL := $(OPT) $(LDFLAGS)

objs = $(patsubst runtime/%.c,$(BUILD)/obj/%.o,$(1))
# Plotting (PNG, a bitmap font) is the Lua library's: the core needs no libpng.
CORE_OBJ := $(call objs,$(foreach l,$(filter-out image,$(CORE_LAYERS)),$(wildcard runtime/src/$(l)/*.c)))
$(foreach m,$(MODULES),$(eval $(m)_OBJ := $(call objs,$(foreach d,$($(m)_DIRS),$(wildcard runtime/src/$(d)/*.c)))))
MODULE_OBJ := $(foreach m,$(MODULES),$($(m)_OBJ))
# The pure-Lua modules are compiled into libipfsrt-lua too (runtime/lua/embed.lua),
# with each module's bindings when it is built.
LUA_LIB_SRC := $(wildcard lua/ipfsrt/*.lua lua/ipfsrt/dataset/*.lua)
server_BIND := lua_serve.c
s3_BIND := lua_s3.c
netcdf_BIND := lua_netcdf.c lua_refs.c
UNBUILT_BIND := $(addprefix runtime/lua/,$(foreach m,$(filter-out $(MODULES),server s3 netcdf),$($(m)_BIND)))
LUA_OBJ := $(call objs,$(filter-out $(UNBUILT_BIND),$(wildcard runtime/lua/*.c)) $(wildcard runtime/src/image/*.c)) \
           $(BUILD)/obj/gen/lua_sources.o
LIB_OBJ := $(CORE_OBJ) $(MODULE_OBJ) $(LUA_OBJ)
VERSION := $(shell sed -n 's/.*IPFSRT_VERSION_STRING "\(.*\)"/\1/p' runtime/include/ipfsrt/base.h)
ABI := 2
LIBNAMES := ipfsrt $(patsubst %,ipfsrt-%,$(MODULES)) ipfsrt-lua
.PHONY: all python help deps test test-% asan tsan fuzz demo tamper example bench bench-peers mpi reference abi-baseline install clean FORCE
.DEFAULT_GOAL := all
help:
	@sed -n 's/^## //p' Makefile
## make                 the libraries (core, modules, Lua), the Lua module and build/ipfsrt
## make test[-PART]     install missing Debian packages (as root), build, run the tests (tests/run.sh)
## make demo | example  the main job on built-in sample data | verify, list and serve a CAR
## make asan | tsan     the suite under ASan + UBSan (build-asan/) | the threaded paths under TSan
## make bench | bench-peers | tamper | fuzz    benchmarks, beside peers, a lying gateway, libFuzzer
## make mpi | reference | install | abi-baseline | clean    (PREFIX=/usr/local)
## options: HASH=openssl|mbedtls  MODULES="server s3 netcdf"  SAN=1|thread  BUILD=dir

all: $(foreach l,$(LIBNAMES),$(BUILD)/lib$(l).a $(BUILD)/lib$(l).so) $(BUILD)/ipfsrt.so $(BUILD)/ipfsrt python
deps:
	@sh scripts/deps.sh test

$(BUILD)/obj/%.o: runtime/%.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS_ALL) -MMD -MP -c $< -o $@
-include $(LIB_OBJ:.o=.d) $(BUILD)/obj/main.d

# The install prefix is compiled in: its users rebuild when PREFIX changes.
$(BUILD)/prefix.stamp: FORCE
	@mkdir -p $(dir $@) && (echo '$(PREFIX)' | cmp -s - $@ || echo '$(PREFIX)' > $@)
$(BUILD)/obj/main.o $(BUILD)/obj/lua/lua_module.o: $(BUILD)/prefix.stamp

# The n-d array loops are written for the vectorizer, which -O2 runs only for
# the cheapest cases; nothing there reads floating-point exception flags.
ifeq ($(SAN),)
VECTOR_OBJ := $(filter $(BUILD)/obj/src/ndarray/%,$(CORE_OBJ)) $(addprefix $(BUILD)/obj/src/zarr/,extremes.o fold_along.o fold_weighted.o)
$(VECTOR_OBJ): CFLAGS_ALL += -O3 -fno-trapping-math -fno-math-errno
$(BUILD)/obj/src/codec/filters.o: CFLAGS_ALL += -O3
endif

$(BUILD)/gen/lua_sources.c: runtime/lua/embed.lua $(LUA_LIB_SRC)
	@mkdir -p $(dir $@) && echo "  EMBED   $@" && lua5.4 runtime/lua/embed.lua $@ $(LUA_LIB_SRC)
$(BUILD)/obj/gen/lua_sources.o: $(BUILD)/gen/lua_sources.c
	@mkdir -p $(dir $@) && echo "  CC      $<" && $(CC) $(CFLAGS_ALL) -Iruntime/lua -c $< -o $@

# Each library exports what its version script (from its headers' marks)
# lists and binds its calls to itself (-Bsymbolic); its static archive is one
# object linked beforehand with hidden names made local. A library finds the
# others beside it ($ORIGIN), wherever they are installed. Sanitized builds
# leave the sanitizer runtime to the executable (no --no-undefined).
SHARED = $(CC) -shared $(LDFLAGS_ALL) -Wl,-Bsymbolic $(if $(SAN),,-Wl,--no-undefined) -Wl,-soname,$(notdir $@).$(ABI) \
         -Wl,-rpath,'$$ORIGIN' \
         -Wl,--version-script=$(BUILD)/$(1).map -o $@
PRELINK = echo "  AR      $@" && ld -r -o $@.o $(sort $(1)) && \
          objcopy --localize-hidden --redefine-syms=$(BUILD)/private.syms $@.o && rm -f $@ && ar rcs $@ $@.o && rm $@.o
# In the archives, what the core exports for its modules goes by a name no
# host would use (ipfsrt_private__NAME), so that a host's own functions named
# like them never clash.
$(BUILD)/private.syms: $(wildcard runtime/src/*/*.h)
	@mkdir -p $(dir $@) && sed -n 's/^IPFSRT_PRIVATE [^(]*[^a-zA-Z0-9_(]ipfsrt_\([a-zA-Z0-9_]*\)(.*/ipfsrt_\1 ipfsrt_private__\1/p' $^ > $@
CORE_HEADERS := $(filter-out $(foreach m,server s3 netcdf,$(patsubst %,runtime/include/ipfsrt/%.h,$($(m)_HEADERS))) \
                  runtime/include/ipfsrt/lua.h runtime/include/ipfsrt/image.h,$(wildcard runtime/include/ipfsrt/*.h))
$(BUILD)/ipfsrt.map: runtime/version_script.sh $(CORE_HEADERS) $(wildcard runtime/src/*/*.h)
	@mkdir -p $(dir $@) && sh $< IPFSRT $(ABI) $(CORE_HEADERS) -- $(wildcard runtime/src/*/*.h) > $@
$(BUILD)/ipfsrt-%.map: runtime/version_script.sh FORCE
	@mkdir -p $(dir $@) && sh $< IPFSRT_$(shell echo $* | tr a-z- A-Z_) $(ABI) \
	    $(patsubst %,runtime/include/ipfsrt/%.h,$(if $(filter lua,$*),lua image,$($*_HEADERS))) > $@.new && \
	    (cmp -s $@.new $@ || mv $@.new $@) && rm -f $@.new
$(BUILD)/libipfsrt.a: $(CORE_OBJ) $(BUILD)/private.syms
	@$(call PRELINK,$(CORE_OBJ))
$(BUILD)/libipfsrt.so: $(CORE_OBJ) $(BUILD)/ipfsrt.map
	@echo "  LD      $@" && $(call SHARED,ipfsrt) $(CORE_OBJ) $(CORE_LIBS)
define module_rules
$(BUILD)/libipfsrt-$(1).a: $$($(1)_OBJ) $(BUILD)/private.syms
	@$$(call PRELINK,$$($(1)_OBJ))
$(BUILD)/libipfsrt-$(1).so: $$($(1)_OBJ) $(BUILD)/ipfsrt-$(1).map $(BUILD)/libipfsrt.so
	@echo "  LD      $$@" && $$(call SHARED,ipfsrt-$(1)) $$($(1)_OBJ) -L$(BUILD) -lipfsrt \
	    $$($(1)_LIBS) $$(CORE_LIBS)
endef
$(foreach m,$(MODULES),$(eval $(call module_rules,$(m))))
$(BUILD)/libipfsrt-lua.a: $(LUA_OBJ) $(BUILD)/private.syms
	@$(call PRELINK,$(LUA_OBJ))
$(BUILD)/libipfsrt-lua.so: $(LUA_OBJ) $(BUILD)/ipfsrt-lua.map $(foreach l,$(filter-out ipfsrt-lua,$(LIBNAMES)),$(BUILD)/lib$(l).so)
	@echo "  LD      $@" && $(call SHARED,ipfsrt-lua) $(LUA_OBJ) -L$(BUILD) $(patsubst %,-lipfsrt-%,$(MODULES)) -lipfsrt $(ALL_LIBS)
# The module a stock lua5.4 requires: everything linked in, the Lua API left
# to the interpreter, luaopen_ipfsrt exported alone.
$(BUILD)/ipfsrt.so: $(LIB_OBJ) runtime/lua/module.map
	@echo "  LD      $@" && $(CC) -shared $(LDFLAGS_ALL) -Wl,--version-script=runtime/lua/module.map -o $@ \
	    $(sort $(LIB_OBJ)) $(filter-out -llua5.4,$(ALL_LIBS))
$(BUILD)/ipfsrt: $(BUILD)/obj/main.o $(BUILD)/libipfsrt-lua.a $(patsubst %,$(BUILD)/libipfsrt-%.a,$(MODULES)) $(BUILD)/libipfsrt.a
	@echo "  LD      $@" && $(CC) $(LDFLAGS_ALL) -Wl,-E -o $@ $^ $(ALL_LIBS)

# ipfsrt.mpi's C half: linked to MPI and to nothing of ipfsrt (it reaches the
# library through the host's ipfsrt_lua_api). Nothing else links MPI.
MPI_SO := $(BUILD)/lua/ipfsrt/mpi_core.so
mpi: $(MPI_SO)
$(MPI_SO): $(wildcard runtime/mpi/*.c) runtime/mpi/mpi_internal.h runtime/include/ipfsrt/lua.h
	@mkdir -p $(dir $@) && echo "  LD      $@" && $(CC) -shared $(CFLAGS_ALL) $(call pkgs,--cflags,mpi-c) -o $@ \
	    $(filter %.c,$^) $(call pkgs,--libs,mpi-c) -lm

# The C reference: a man page per exported function, struct and enum, from
# the headers' comments (runtime/man3.lua; tests/reference/run.sh checks them
# and runs doxygen over the same comments).
REFERENCE := $(BUILD)/man3/ipfsrt.3
$(REFERENCE): runtime/man3.lua runtime/include/ipfsrt.h $(wildcard runtime/include/ipfsrt/*.h)
	@rm -rf $(dir $@) && mkdir -p $(dir $@) && lua5.4 $< $(dir $@) $(VERSION) runtime/include
reference: $(REFERENCE)

# The main job on built-in sample data (scripts/demo.lua), the README's first command.
demo:
	sh scripts/deps.sh test
	$(MAKE) all
	IPFSRT_EXE=$(BUILD)/ipfsrt $(BUILD)/ipfsrt scripts/demo.lua --dir $(BUILD)/demo
example: deps all
	$(BUILD)/ipfsrt car verify tests/fixtures/ipfs-car-small.car
	$(BUILD)/ipfsrt car ls tests/fixtures/ipfs-car-small.car
	$(BUILD)/ipfsrt scripts/examples/fetch_verified.lua tests/fixtures/ipfs-car-small.car
# The test programs and the suite's targets; the benchmarks'.
include runtime/python/python.mk tests/tests.mk scripts/bench/bench.mk

# Executable, libraries, headers, pkg-config files, man pages, Lua modules, policies, examples.
install: all $(REFERENCE)
	BUILD=$(BUILD) PREFIX=$(PREFIX) DESTDIR=$(DESTDIR) VERSION=$(VERSION) ABI=$(ABI) LIBNAMES="$(LIBNAMES)" PYTHON=$(PYTHON) \
	    CORE_PKGS="$(CORE_PKGS)" CORE_PRIVATE="$(CORE_PRIVATE)" $(foreach m,$(MODULES),$(m)_PKGS="$($(m)_PKGS)" \
	    $(m)_PRIVATE="$($(m)_PRIVATE)" $(m)_HEADERS="$($(m)_HEADERS)") sh runtime/install.sh
clean:
	rm -rf build build-asan build-tsan build-fuzz
