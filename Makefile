# tkc: `make` builds build/tkc; `make run` and `make test` also install what
# is missing (re2c, bison, llvm-22-dev) when run as root, or print the command.
# Options: SAN=1 (ASan+UBSan, in build/san), LLVM_CONFIG=, CUDA_HOME=, V=1.

LLVM_CONFIG ?= llvm-config-22
CUDA_HOME   ?= /usr/local/cuda
RE2C        ?= re2c
BISON       ?= bison
CC          ?= cc

ifeq ($(SAN),1)
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

# Sources of the pipeline, one folder a stage.
SUPPORT_SRC := $(wildcard support/*.c)
LEXER_SRC   := $(BUILD)/gen/lexer.c
PARSER_SRC  := $(BUILD)/gen/grammar.c $(wildcard parser/*.c)
SEMA_SRC    := $(wildcard sema/*.c)
CLI_SRC     := $(wildcard cli/*.c)
TKC_SRC     := $(SUPPORT_SRC) $(LEXER_SRC) $(PARSER_SRC) $(SEMA_SRC) $(CLI_SRC)
TKC_OBJ     := $(patsubst %.c,$(BUILD)/obj/%.o,$(patsubst $(BUILD)/%,%,$(TKC_SRC)))

ifeq ($(V),1)
Q :=
else
Q := @
endif

.PHONY: all deps run test golden-update clean
all: $(BUILD)/tkc

$(BUILD)/tkc: $(TKC_OBJ)
	@echo "  LD      $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ -lm

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

$(BUILD)/obj/%.o: %.c | $(BUILD)/gen/grammar.h
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CPPFLAGS) -I$(BUILD)/gen -I$(dir $<) $(CFLAGS) -DTK_LLVM_VERSION='"$(LLVM_VERSION)"' -c $< -o $@

-include $(TKC_OBJ:.o=.d)

# ---- set-up ------------------------------------------------------------
# Installs the build's tools when root, else says how. Nothing else needs them.
deps:
	@missing=""; \
	command -v $(RE2C) >/dev/null 2>&1 || missing="$$missing re2c"; \
	command -v $(BISON) >/dev/null 2>&1 || missing="$$missing bison"; \
	$(LLVM_CONFIG) --version >/dev/null 2>&1 || missing="$$missing llvm-22-dev"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null || exit 1; \
	  else \
	    echo "missing:$$missing; install them with:"; \
	    echo "  sudo apt-get install$$missing"; exit 1; \
	  fi; \
	fi

# Compiles every reference kernel. Code generation is not built yet, so this
# type-checks them (--emit=sema) and says so; the GPU run comes with it.
run: deps
	@$(MAKE) --no-print-directory all
	@for k in kernels/*.tk; do \
	  printf '  TKC     %s\n' "$$k"; \
	  $(BUILD)/tkc --emit=sema $$k -o $(BUILD)/kernels/$$(basename $$k .tk).sema || exit 1; \
	done
	@echo "kernels type-checked into $(BUILD)/kernels/ (PTX, cubin and running them come with the back end)"

test: deps
	@$(MAKE) --no-print-directory all
	@TKC=$(BUILD)/tkc SAN=$(SAN) CUDA_HOME=$(CUDA_HOME) sh test/run.sh

golden-update: all
	@TKC=$(BUILD)/tkc UPDATE=1 sh test/run.sh

clean:
	rm -rf build
