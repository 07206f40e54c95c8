# Crate: two commands on a fresh Debian/Ubuntu machine with the Swift toolchain.
#   make run   installs what is missing, builds release, makes a demo library if the library is empty, plays an album
#   make test  installs what is missing and runs every test
SHELL := /bin/bash
SWIFT ?= swift
RELEASE_BIN = .build/release
CRATE = $(RELEASE_BIN)/crate

.PHONY: run test build deps test-deps demo clean

deps:
	@scripts/install-deps.sh run

test-deps:
	@scripts/install-deps.sh test

build: deps
	$(SWIFT) build -c release --product crate
	$(SWIFT) build -c release --product crated

# Plays the first album of the library; with an empty library, a generated demo library is imported first.
run: build
	@if [ -z "$$($(CRATE) albums --ids)" ]; then \
	  demo="$$($(CRATE) config --get data.directory)/demo-library"; \
	  echo "The library is empty: generating a demo library in $$demo"; \
	  scripts/make-demo-library.sh "$$demo" && $(CRATE) import "$$demo"; \
	fi
	$(CRATE) albums
	$(CRATE) play "$$($(CRATE) albums --ids | head -n 1)"

test: test-deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

clean:
	rm -rf .build
