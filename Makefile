# Crate: two commands on a fresh Debian/Ubuntu machine with the Swift toolchain.
#   make run   installs what is missing, builds release, makes a demo library if the library is empty,
#              starts crated in the foreground, plays the first album through it and prints the web page's
#              address (Ctrl-C stops the daemon)
#   make test  installs what is missing (the browser included), runs every test and fuzzes each parser for 20 s
SHELL := /bin/bash
SWIFT ?= swift
RELEASE_BIN = .build/release
CRATE = $(RELEASE_BIN)/crate
CRATED = $(RELEASE_BIN)/crated

.PHONY: run test build deps test-deps demo clean

deps:
	@scripts/install-deps.sh run

test-deps:
	@scripts/install-deps.sh test
	@scripts/browser-venv.sh

build: deps
	$(SWIFT) build -c release --static-swift-stdlib --product crate
	$(SWIFT) build -c release --static-swift-stdlib --product crated

# Plays the first album of the library through the daemon; with an empty library, a generated demo
# library is imported first. A daemon already running is used as it is.
run: build
	@if [ -z "$$($(CRATE) albums --ids)" ]; then \
	  demo="$$($(CRATE) config --get data.directory)/demo-library"; \
	  echo "The library is empty: generating a demo library in $$demo"; \
	  scripts/make-demo-library.sh "$$demo" && $(CRATE) import "$$demo"; \
	fi
	-$(CRATE) wall   # the landing view: the Crate Wall, in the terminal (empty, it says why and exits 1)
	@echo "Crate's web page (the album wall): http://$$($(CRATE) config --get http.address)/"
	@album="$$($(CRATE) albums --ids | head -n 1)"; \
	if $(CRATE) status >/dev/null 2>&1; then \
	  $(CRATE) play-album "$$album"; \
	else \
	  ( for i in $$(seq 100); do $(CRATE) status >/dev/null 2>&1 && break; sleep 0.1; done; \
	    $(CRATE) play-album "$$album" ) & \
	  exec $(CRATED); \
	fi

# Swift tests first, then the real-browser tests (Debian's chromium through Playwright) against the same build, then
# 20 seconds of libFuzzer per hand-written parser (its own build in .build-fuzz/; a finding fails; Fuzz/README.md).
test: test-deps
	scripts/check-boundaries.sh
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	.build/browser-venv/bin/python -m pytest -q -p no:cacheprovider Tests/Browser Tests/Integration
	scripts/fuzz.sh 20

clean:
	rm -rf .build
