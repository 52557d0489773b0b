# The test programs (unit tests, fuzz targets and their replays) and the
# targets that run the suite, included by the Makefile; tests/run.sh runs
# the parts, each through its own tests/PART/run.sh.
UNIT_BIN := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(wildcard tests/unit/test_*.c))
FUZZ_ALL := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
# The unit tests compare the hash backend with the other crypto library.
TEST_LIBS := $(call pkgs,--libs,cmocka) -lmbedcrypto -lcrypto
# Every object as it is, internals reachable: the unit tests, fuzz targets
# and benchmark helpers test internal modules directly.
INTERNAL_LIB := $(BUILD)/internal/libipfsrt-all.a
$(INTERNAL_LIB): $(LIB_OBJ)
	@mkdir -p $(dir $@) && rm -f $@ && echo "  AR      $@" && ar rcs $@ $(sort $^)
$(BUILD)/tests/%: tests/unit/%.c tests/unit/testutil.h $(INTERNAL_LIB)
	@mkdir -p $(dir $@) && echo "  CC      $@" && $(CC) $(CFLAGS_ALL) -Itests/unit -o $@ $< $(INTERNAL_LIB) $(ALL_LIBS) \
	    $(TEST_LIBS)
$(BUILD)/fuzz/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(INTERNAL_LIB)
	@mkdir -p $(dir $@) && echo "  CC      $@" && $(CC) $(CFLAGS_ALL) -Wno-missing-prototypes -Iruntime/lua -o $@ $< \
	    tests/fuzz/replay.c $(INTERNAL_LIB) $(ALL_LIBS)
$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(INTERNAL_LIB)
	@mkdir -p $(dir $@) && echo "  CC      $@" && $(CC) $(CFLAGS_ALL) -fsanitize=fuzzer -Wno-missing-prototypes \
	    -Iruntime/lua -o $@ $< $(INTERNAL_LIB) $(ALL_LIBS)

TEST_BUILT := all $(UNIT_BIN) $(patsubst %,$(BUILD)/fuzz/replay_%,$(FUZZ_ALL)) $(BUILD)/bench/netem $(REFERENCE)
TEST_ENV = BUILD=$(BUILD) SAN=$(SAN) SAN_LIBS="$(SAN_LIBS)" OPT="$(OPT)" MAKE="$(MAKE)"
test: deps
	$(MAKE) $(TEST_BUILT)
	$(TEST_ENV) sh tests/run.sh
test-%: $(TEST_BUILT)
	$(TEST_ENV) sh tests/run.sh $*
asan:
	$(MAKE) test BUILD=build-asan SAN=1
tsan:
	sh scripts/deps.sh tsan
	$(MAKE) all $(UNIT_BIN:$(BUILD)/%=build-tsan/%) BUILD=build-tsan SAN=thread CC=clang
	BUILD=build-tsan sh tests/tsan/run.sh $(UNIT_BIN:$(BUILD)/%=build-tsan/%)
# libFuzzer (clang) on each tests/fuzz/fuzz_*.c from its corpus (finds in build-fuzz/corpus).
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= $(FUZZ_ALL)
fuzz:
	sh scripts/deps.sh tsan
	$(MAKE) $(FUZZ_TARGETS:%=build-fuzz/fuzz/fuzz_%) BUILD=build-fuzz SAN=fuzz CC=clang
	FUZZ_SECONDS=$(FUZZ_SECONDS) sh tests/fuzz/fuzz.sh $(FUZZ_TARGETS)
abi-baseline: all
	for l in $(LIBNAMES); do sh tests/abi/check.sh $(BUILD) --record $$l; done
