# The benchmarks' helpers and targets, included by the Makefile;
# scripts/bench/run.sh runs them in turn.
# Measuring helpers of benchmark scenarios (scripts/bench/*.lua run them).
$(BUILD)/bench/%: tests/bench/%.c $(INTERNAL_LIB)
	@mkdir -p $(dir $@) && echo "  CC      $@" && $(CC) $(CFLAGS_ALL) -o $@ $< $(INTERNAL_LIB) $(ALL_LIBS)
# The network emulator: a program of its own, nothing of ipfsrt in it.
$(BUILD)/bench/netem: scripts/bench/netem.c
	@mkdir -p $(dir $@) && echo "  CC      $@" && $(CC) $(CFLAGS_ALL) -o $@ $< -lm
bench: all $(BUILD)/bench/codec_bench $(BUILD)/bench/netem
	sh scripts/deps.sh bench && BUILD=$(BUILD) sh scripts/bench/run.sh
# ipfsrt beside xarray, zarrita and verified-fetch (scripts/bench/peers.sh).
bench-peers: all $(BUILD)/bench/netem
	sh scripts/deps.sh peers && BUILD=$(BUILD) sh scripts/bench/peers.sh
tamper: all
	IPFSRT_EXE=$(BUILD)/ipfsrt $(BUILD)/ipfsrt scripts/tamper.lua --dir $(BUILD)/tamper
