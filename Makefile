# tkc: `make` builds build/tkc. Every target that builds installs what it
# needs when it is missing (re2c, bison, llvm-22-dev; for STATIC=1 the static
# libraries LLVM links against) when run as root, or prints the command.
# Options: SAN=1 (ASan+UBSan, in build/san), STATIC=1 (LLVM linked in, build/static),
# LLVM_CONFIG=, CUDA_HOME=, V=1.

LLVM_CONFIG ?= llvm-config-22
CUDA_HOME   ?= /usr/local/cuda
RE2C        ?= re2c
BISON       ?= bison
CC          ?= cc

ifeq ($(FUZZ),1)
# the libFuzzer build (make fuzz): clang, coverage for the fuzzer, ASan+UBSan
BUILD    := build/fuzz
CC       := clang
SANFLAGS := -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
else ifeq ($(SAN),1)
BUILD    := build/san
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
else
BUILD    := build
SANFLAGS :=
endif

OPT      ?= -O2
CFLAGS   := -std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
            -Wno-missing-field-initializers $(OPT) -g -D_DEFAULT_SOURCE $(SANFLAGS)
CPPFLAGS := -I$(BUILD) -MMD -MP
LDFLAGS  := $(SANFLAGS)
LLVM_VERSION := $(shell $(LLVM_CONFIG) --version 2>/dev/null)
LLVM_INCLUDE := $(shell $(LLVM_CONFIG) --includedir 2>/dev/null)
ifeq ($(STATIC),1)
# One tkc binary with LLVM inside: needs only libc, libstdc++, zlib and zstd
# at run time, so it runs on machines without LLVM (the GPU machine).
BUILD        := build/static
LLVM_LIBS    := $(shell $(LLVM_CONFIG) --link-static --ldflags --libs nvptx passes 2>/dev/null) \
                $(shell $(LLVM_CONFIG) --link-static --system-libs 2>/dev/null) -lstdc++
LDFLAGS      += -s
else
LLVM_LIBS    := $(shell $(LLVM_CONFIG) --ldflags --libs 2>/dev/null) \
                -Wl,-rpath,$(shell $(LLVM_CONFIG) --libdir 2>/dev/null)
endif

# Sources of the pipeline, one folder a stage.
SUPPORT_SRC := $(wildcard support/*.c)
LEXER_SRC   := $(BUILD)/gen/lexer.c
PARSER_SRC  := $(BUILD)/gen/grammar.c $(wildcard parser/*.c)
SEMA_SRC    := $(wildcard sema/*.c)
LOWER_SRC   := $(wildcard lower/*.c)
CODEGEN_SRC := $(wildcard codegen/*.c)
CLI_SRC     := $(wildcard cli/*.c)
TKC_SRC     := $(SUPPORT_SRC) $(LEXER_SRC) $(PARSER_SRC) $(SEMA_SRC) $(LOWER_SRC) $(CODEGEN_SRC) $(CLI_SRC)
TKC_OBJ     := $(patsubst %.c,$(BUILD)/obj/%.o,$(patsubst $(BUILD)/%,%,$(TKC_SRC)))

ifeq ($(V),1)
Q :=
else
Q := @
endif

.PHONY: all deps run test golden-update clean gpu-build gpu-examples gpu-test gpu-difftest bench fuzz fuzz-run install
all: deps
	@$(MAKE) --no-print-directory $(BUILD)/tkc

$(BUILD)/tkc: $(TKC_OBJ)
	@echo "  LD      $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LLVM_LIBS) -lm

$(BUILD)/gen/lexer.c: lexer/lexer.re
	@mkdir -p $(dir $@)
	@echo "  RE2C    $<"
	$(Q)$(RE2C) -W -Werror $< -o $@

$(BUILD)/gen/grammar.c $(BUILD)/gen/grammar.h: parser/grammar.y
	@mkdir -p $(dir $@)
	@echo "  BISON   $<"
	$(Q)$(BISON) -Wall -Werror --header=$(BUILD)/gen/grammar.h -o $(BUILD)/gen/grammar.c $<

# Generated sources compile from build/gen; hand-written ones from their folder.
$(BUILD)/obj/gen/%.o: $(BUILD)/gen/%.c | $(BUILD)/gen/grammar.h
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CPPFLAGS) -I$(BUILD)/gen -Ilexer -Iparser $(CFLAGS) -c $< -o $@

# codegen alone sees LLVM's headers (as system headers: their warnings are not ours)
$(BUILD)/obj/codegen/%.o: CPPFLAGS += -isystem $(LLVM_INCLUDE)

$(BUILD)/obj/%.o: %.c | $(BUILD)/gen/grammar.h
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CPPFLAGS) -I$(BUILD)/gen -I$(dir $<) $(CFLAGS) -DTK_LLVM_VERSION='"$(LLVM_VERSION)"' -c $< -o $@

-include $(TKC_OBJ:.o=.d)

# ---- runtime_stub: the library generated headers call ---------------------
RT_OBJ    := $(BUILD)/obj/runtime_stub/tkrt.o
-include $(RT_OBJ:.o=.d)
RT_DIR    := $(BUILD)/runtime
RT_LIBS   := -ldl -lpthread
CXX       ?= c++
HAVE_CUDA := $(wildcard $(CUDA_HOME)/include/cuda_runtime.h)
RT_TESTS  := $(RT_DIR)/no_driver_test $(RT_DIR)/fake_driver_test $(RT_DIR)/fake_libcuda.so \
             $(RT_DIR)/driver_test $(RT_DIR)/header_c99_test.o $(RT_DIR)/header_cxx_test.o
ifneq ($(HAVE_CUDA),)
RT_TESTS  += $(RT_DIR)/cudart_test $(RT_DIR)/kernels_sm90a.cubin $(RT_DIR)/kernels_sm80.cubin
endif

$(RT_OBJ): CFLAGS += -fPIC
$(BUILD)/libtkrt.a: $(RT_OBJ)
	$(Q)ar rcs $@ $^

$(RT_DIR)/%_test: test/runtime/%_test.c $(BUILD)/libtkrt.a runtime_stub/tkrt.h
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -Iruntime_stub $< $(BUILD)/libtkrt.a -o $@ $(LDFLAGS) $(RT_LIBS)
# driver_test launches kernels/vector_add.tk from two generated headers: one
# for sm_80 and sm_90a, one for sm_80 alone
$(RT_DIR)/driver_test: $(RT_DIR)/gen/va_multi.h $(RT_DIR)/gen/va_sm80.h
$(RT_DIR)/driver_test: CFLAGS += -I$(RT_DIR)/gen
$(RT_DIR)/gen/va_multi.h: kernels/vector_add.tk $(BUILD)/tkc
	$(Q)$(BUILD)/tkc --arch=sm_80,sm_90a --prefix=va_multi $< -o $@
$(RT_DIR)/gen/va_sm80.h: kernels/vector_add.tk $(BUILD)/tkc
	$(Q)$(BUILD)/tkc --arch=sm_80 --prefix=va_sm80 $< -o $@
$(RT_DIR)/fake_libcuda.so: test/runtime/fake_libcuda.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -fPIC -shared $< -o $@ $(LDFLAGS) -lpthread
$(RT_DIR)/header_c99_test.o: test/runtime/header_c99_test.c runtime_stub/tkrt.h
	@mkdir -p $(dir $@)
	$(Q)$(CC) -std=c99 -Wall -Wextra -Werror -pedantic $(SANFLAGS) -Iruntime_stub -c $< -o $@
$(RT_DIR)/header_cxx_test.o: test/runtime/header_cxx_test.cpp runtime_stub/tkrt.h
	@mkdir -p $(dir $@)
	$(Q)$(CXX) -Wall -Wextra -Werror -pedantic $(SANFLAGS) -I$(CUDA_HOME)/include -Iruntime_stub -c $< -o $@
$(RT_DIR)/cudart_test: test/runtime/cudart_test.cpp $(BUILD)/libtkrt.a
	@mkdir -p $(dir $@)
	$(Q)$(CXX) -Wall -Wextra -Werror -O2 -g $(SANFLAGS) -I$(CUDA_HOME)/include -Iruntime_stub $< \
	  $(BUILD)/libtkrt.a $(CUDA_HOME)/lib64/libcudart_static.a -o $@ $(RT_LIBS) -lrt
$(RT_DIR)/kernels_%.cubin: test/runtime/kernels.ptx
	@mkdir -p $(dir $@)
	$(Q)$(CUDA_HOME)/bin/ptxas -arch=$(subst sm,sm_,$*) $< -o $@

# ---- C unit tests ---------------------------------------------------------
# Every test/unit/NAME_test.c is a unit test, found by glob: built into
# $(BUILD)/unit/NAME_test, linked with every object of tkc but the driver
# (cli/) and with LLVM, and run by `make test` (it prints "ok" last). A new
# test needs no edit here.
UNIT_TESTS := $(patsubst test/unit/%.c,$(BUILD)/unit/%,$(wildcard test/unit/*_test.c))
UNIT_OBJ   := $(filter-out $(BUILD)/obj/cli/%,$(TKC_OBJ))

$(BUILD)/unit/%_test: test/unit/%_test.c test/unit/unit.h $(UNIT_OBJ)
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	$(Q)$(CC) -I. $(if $(LLVM_INCLUDE),-isystem $(LLVM_INCLUDE)) $(CFLAGS) $(filter-out %.h,$^) -o $@ $(LDFLAGS) $(LLVM_LIBS) -lm

# ---- fuzzing ---------------------------------------------------------------
# make fuzz: build/fuzz/fuzz_tkc (libFuzzer, ASan, UBSan), its dictionary
# and a seed corpus from kernels/ and the test sources; then
#   make fuzz-run FUZZ_RUNS=N FUZZ_SECONDS=S FUZZ_SEED=K
# fuzzes (a finding is saved as build/fuzz/crash-* and fails the run).
FUZZ_RUNS    ?= -1
FUZZ_SECONDS ?= 0
FUZZ_SEED    ?= 0
fuzz:
	@$(MAKE) --no-print-directory FUZZ=1 deps
	@$(MAKE) --no-print-directory FUZZ=1 build/fuzz/fuzz_tkc build/fuzz/tk.dict build/fuzz/seeds

build/fuzz/fuzz_tkc: test/fuzz/fuzz_tkc.c $(filter-out $(BUILD)/obj/cli/%,$(TKC_OBJ))
	@echo "  LD      $@"
	$(Q)$(CC) $(CFLAGS) -fsanitize=fuzzer -isystem $(LLVM_INCLUDE) $^ -o $@ $(LLVM_LIBS) -lm

# the language's words: keywords, types, every builtin's name, operators
build/fuzz/tk.dict: sema/builtins.def sema/libdevice.def test/fuzz/words
	@mkdir -p $(dir $@)
	$(Q){ sed -n 's/^BUILTIN([A-Z_0-9]*, "\([A-Za-z_0-9]*\)".*/"\1"/p' sema/builtins.def; \
	  sed -n 's/^LIBDEVICE_FN(\([A-Za-z_0-9]*\),.*/"\1"/p' sema/libdevice.def; sed 's/.*/"&"/' test/fuzz/words; } | sort -u >$@

build/fuzz/seeds: $(wildcard kernels/*.tk test/golden/*/*.tk test/fuzz/*.tk test/runtime/*.tk)
	@rm -rf $@ && mkdir -p $@
	$(Q)for f in $^; do cp $$f $@/$$(echo $$f | tr / _); done

fuzz-run: fuzz
	@mkdir -p build/fuzz/corpus
	@cd build/fuzz && ./fuzz_tkc -dict=tk.dict -seed=$(FUZZ_SEED) -runs=$(FUZZ_RUNS) \
	  -max_total_time=$(FUZZ_SECONDS) -timeout=20 -rss_limit_mb=4096 -max_len=4096 \
	  -print_final_stats=1 corpus seeds

# ---- set-up ------------------------------------------------------------
# Installs the build's tools when root, else says how: what `make` needs,
# and the static libraries `make STATIC=1` links (every documented target
# works on a fresh machine). Nothing else needs them.
STATIC_DEPS := libzstd-dev zlib1g-dev libz3-dev libxml2-dev
deps:
	@missing=""; \
	command -v $(RE2C) >/dev/null 2>&1 || missing="$$missing re2c"; \
	command -v $(BISON) >/dev/null 2>&1 || missing="$$missing bison"; \
	$(LLVM_CONFIG) --version >/dev/null 2>&1 || missing="$$missing llvm-22-dev"; \
	if [ "$(STATIC)" = 1 ] && command -v dpkg >/dev/null 2>&1; then for p in $(STATIC_DEPS); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; fi; \
	if [ "$(FUZZ)" = 1 ] || [ "$$CI" = true ]; then \
	  if ! command -v clang >/dev/null 2>&1; then missing="$$missing clang libclang-rt-dev"; \
	  elif ! echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' | \
	       clang -fsanitize=fuzzer -x c - -o /dev/null >/dev/null 2>&1; then \
	    missing="$$missing libclang-rt-$$(clang --version | sed -n 's/.*version \([0-9]*\).*/\1/p' | head -1)-dev"; fi; \
	fi; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null || exit 1; \
	  else \
	    echo "missing:$$missing; install them with:"; \
	    echo "  sudo apt-get install$$missing"; exit 1; \
	  fi; \
	fi

# Compiles every reference kernel (one that uses something code generation
# does not have yet is type-checked only, and says so), and runs the GPU
# tests when a GPU and Python with torch are there.
run: deps
	@$(MAKE) --no-print-directory all $(BUILD)/libtkrt.a
	@mkdir -p $(BUILD)/kernels
	@for k in kernels/*.tk; do \
	  printf '  TKC     %s\n' "$$k"; \
	  if ! $(BUILD)/tkc $$k -o $(BUILD)/kernels/ 2>$(BUILD)/kernels/err.txt; then \
	    if grep -q 'not supported by code generation yet' $(BUILD)/kernels/err.txt; then \
	      echo "          (code generation not supported yet; type-checked only)"; \
	      $(BUILD)/tkc --emit=sema $$k -o $(BUILD)/kernels/$$(basename $$k .tk).sema || exit 1; \
	    else cat $(BUILD)/kernels/err.txt; exit 1; fi; \
	  fi; \
	done
	@echo "kernels compiled into $(BUILD)/kernels/"
	@if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi >/dev/null 2>&1; then \
	  $(MAKE) --no-print-directory gpu-build gpu-test; \
	else echo "no GPU here: run 'make gpu-build' and then 'make gpu-test' on a machine with one"; fi

test: deps
	@$(MAKE) --no-print-directory all $(BUILD)/libtkrt.a $(RT_TESTS) $(UNIT_TESTS)
	@if [ "$$CI" = true ]; then $(MAKE) --no-print-directory fuzz; fi
	@UNIT_TESTS="$(UNIT_TESTS)" TKC=$(BUILD)/tkc SAN=$(SAN) SANFLAGS="$(SANFLAGS)" CUDA_HOME=$(CUDA_HOME) RT_DIR=$(RT_DIR) RT_LIB=$(BUILD)/libtkrt.a \
	  T='$(value T)' sh test/run.sh

# GPU work: gpu-build compiles every kernel variant into build/gpu/ here;
# gpu-test and bench run on the GPU machine with build/ carried over (they
# do not rebuild tkc there).
gpu-build: all gpu-examples
	@TKC=$(BUILD)/tkc sh test/gpu/build.sh

# the example projects (examples/), built against an install into
# $(BUILD)/examples/prefix: $(BUILD)/examples/{make,cmake}/example, which
# gpu-test runs (carry them with build/)
EXAMPLES = $(abspath $(BUILD))/examples
gpu-examples: all $(BUILD)/libtkrt.a
	@$(MAKE) --no-print-directory install PREFIX=$(EXAMPLES)/prefix >/dev/null
	@$(MAKE) --no-print-directory -C examples/make PREFIX=$(EXAMPLES)/prefix BUILD=$(EXAMPLES)/make \
	  TKC=$(EXAMPLES)/prefix/bin/tkc CUDA_HOME=$(CUDA_HOME)
	@if command -v cmake >/dev/null 2>&1; then \
	  cmake -S examples/cmake -B $(EXAMPLES)/cmake -DCMAKE_PREFIX_PATH=$(EXAMPLES)/prefix \
	    -DCUDAToolkit_ROOT=$(CUDA_HOME) >/dev/null && cmake --build $(EXAMPLES)/cmake; \
	else echo "cmake not installed: examples/cmake not built"; fi

# make install PREFIX=DIR (default /usr/local; DESTDIR= for staging): tkc,
# the runtime (tkrt.h, libtkrt.a, and its source in share/tkc for the
# libraries tkc --python --shared builds), a pkg-config file (tkc.pc) and
# a CMake package (find_package(tkc): tkc::tkrt and tkc_add_kernels).
PREFIX  ?= /usr/local
VERSION := $(shell sed -n 's/^\#define CLI_VERSION "\(.*\)"$$/\1/p' cli/cli.h)
PACKAGE_SED = -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' -e 's|@VERSION_MAJOR@|$(firstword $(subst ., ,$(VERSION)))|g'
install: all $(BUILD)/libtkrt.a
	$(Q)install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	  $(DESTDIR)$(PREFIX)/lib/cmake/tkc $(DESTDIR)$(PREFIX)/share/tkc/tkrt
	$(Q)install -m 755 $(BUILD)/tkc $(DESTDIR)$(PREFIX)/bin/tkc
	$(Q)install -m 644 runtime_stub/tkrt.c runtime_stub/tkrt.h $(DESTDIR)$(PREFIX)/share/tkc/
	$(Q)install -m 644 runtime_stub/tkrt/*.c $(DESTDIR)$(PREFIX)/share/tkc/tkrt/
	$(Q)install -m 644 runtime_stub/tkrt.h $(DESTDIR)$(PREFIX)/include/tkrt.h
	$(Q)install -m 644 $(BUILD)/libtkrt.a $(DESTDIR)$(PREFIX)/lib/libtkrt.a
	$(Q)sed $(PACKAGE_SED) packaging/tkc.pc.in >$(DESTDIR)$(PREFIX)/lib/pkgconfig/tkc.pc
	$(Q)sed $(PACKAGE_SED) packaging/tkcConfig.cmake.in >$(DESTDIR)$(PREFIX)/lib/cmake/tkc/tkcConfig.cmake
	$(Q)sed $(PACKAGE_SED) packaging/tkcConfigVersion.cmake.in \
	  >$(DESTDIR)$(PREFIX)/lib/cmake/tkc/tkcConfigVersion.cmake
	@echo "installed tkc $(VERSION) into $(DESTDIR)$(PREFIX)"

# GPU_TEST_PARTS="check ops ..." runs some parts only (test/gpu/run.sh
# lists its own; runtime and examples are this recipe's)
gpu-test:
	@TKC=$(BUILD)/tkc sh test/gpu/run.sh; status=$$?; \
	 parts=" $${GPU_TEST_PARTS:-runtime examples} "; \
	 case $$parts in *" runtime "*) \
	   if [ -x $(RT_DIR)/driver_test ]; then sh test/runtime/run.sh $(RT_DIR) || status=1; fi;; esac; \
	 case $$parts in *" examples "*) \
	   for e in $(BUILD)/examples/make/example $(BUILD)/examples/cmake/example; do \
	     if [ -x $$e ]; then printf '%s: ' $$e; $$e || status=1; else echo "$$e: not built (make gpu-build)"; fi; \
	   done;; esac; exit $$status

# gpu-difftest (on the GPU machine, like gpu-test): DIFFTEST_COUNT random
# programs of seed DIFFTEST_SEED (test/difftest/gen.py) compiled by tkc and
# by Triton, run on the same inputs and compared; failures, each with a
# reduced reproducer, go to build/difftest/failures/. Last line: "N passed,
# M failed".
DIFFTEST_SEED  ?= 1
DIFFTEST_COUNT ?= 1000
gpu-difftest:
	@TKC=$(BUILD)/tkc python3 test/difftest/run_gpu.py --seed $(DIFFTEST_SEED) --count $(DIFFTEST_COUNT)

bench:
	@TKC=$(BUILD)/tkc sh bench/run.sh

golden-update: all
	@TKC=$(BUILD)/tkc UPDATE=1 T='$(value T)' sh test/run.sh

clean:
	rm -rf build
