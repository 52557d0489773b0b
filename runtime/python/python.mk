# The Python package (runtime/python/, included by the Makefile): the
# extension module ipfsrt._ipfsrt on libipfsrt and libipfsrt-lua (the policies
# are Lua), the package's modules beside it, and a dist-info carrying the
# fsspec entry points: $(BUILD)/python is a site folder (PYTHONPATH).
PYTHON ?= /usr/bin/python3
PY_SUFFIX := $(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))' 2>/dev/null)
PY_SITE := $(BUILD)/python
PY_EXT := $(PY_SITE)/ipfsrt/_ipfsrt$(PY_SUFFIX)
PY_MODS := $(patsubst runtime/python/%,$(PY_SITE)/%,$(wildcard runtime/python/ipfsrt/*.py))
PY_RECORD := $(PY_SITE)/ipfsrt-$(VERSION).dist-info/RECORD
# The libraries are found beside the package by their sonames: two folders
# up in the build tree (linked there by those names), three in an install
# (PREFIX/lib/python3/dist-packages/ipfsrt).
$(BUILD)/lib%.so.$(ABI): $(BUILD)/lib%.so
	@ln -sf $(notdir $<) $@
$(PY_EXT): $(wildcard runtime/python/*.c) runtime/python/py_internal.h $(foreach l,$(LIBNAMES),$(BUILD)/lib$(l).so.$(ABI))
	@mkdir -p $(dir $@) && echo "  LD      $@" && $(CC) -shared $(CFLAGS_ALL) \
	    $(patsubst -I%,-isystem %,$(call pkgs,--cflags,python3)) -Wl,-rpath,'$$ORIGIN/../..:$$ORIGIN/../../..' \
	    -o $@ $(filter %.c,$^) -L$(BUILD) -lipfsrt-lua -lipfsrt
$(PY_SITE)/ipfsrt/%.py: runtime/python/ipfsrt/%.py
	@mkdir -p $(dir $@) && cp $< $@
$(PY_RECORD): runtime/python/dist_info.py $(PY_EXT) $(PY_MODS)
	@$(PYTHON) $< $(PY_SITE) $(VERSION)
python: $(PY_RECORD)
