# Crate: two commands on a fresh Debian/Ubuntu machine with the Swift toolchain.
#   make run   installs what is missing, builds release, makes a demo library if the library is empty,
#              starts crated in the foreground, plays the first album through it and prints the web page's
#              address (Ctrl-C stops the daemon)
#   make test  installs what is missing (the browser included), runs every test and fuzzes each parser for 20 s
# And to keep it: `make install PREFIX=~/.local` (binaries, systemd user unit, desktop entry, man pages, completions;
# see "Installing" below), `make uninstall PREFIX=~/.local`.
SHELL := /bin/bash
SWIFT ?= swift
RELEASE_BIN = .build/release
CRATE = $(RELEASE_BIN)/crate
CRATED = $(RELEASE_BIN)/crated

.PHONY: run test build deps test-deps test-packages demo clean install install-build install-files uninstall bench

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

# The debug build with its tests (beside it the fuzz targets' own build in .build-fuzz/ and the Python venv), then at
# once: the Swift tests; the real-browser tests (Debian's chromium through Playwright), then the integration tests,
# against the same build; 20 seconds of libFuzzer per hand-written parser (a finding fails; Fuzz/README.md).
# scripts/test.sh runs them: each phase's output goes to .build/test-logs/ and is printed whole when it ends, a table
# of phases and times closes the run, and any phase failing fails make test. Each test phase has a temporary folder
# of its own, removed when it ends (scripts/with-scratch-tmp.sh).
test: test-packages
	scripts/check-boundaries.sh
	@SWIFT="$(SWIFT)" scripts/test.sh

# The Debian packages only: scripts/test.sh makes the venv beside the build.
test-packages:
	@scripts/install-deps.sh test

# Issue 30's goal table in one run (Benchmarks/compare.sh): Crate next to MPD, `find` and Chromium on the same corpora,
# written into Benchmarks/README.md. Uses the release binaries as they are (builds only a missing one). A full run is
# estimated at 20-30 minutes on 2 cores (not yet timed); BENCH_FLAGS=--quick tries it in about 3, --wait-idle waits
# for a quiet machine.
bench:
	bash Benchmarks/compare.sh $(BENCH_FLAGS)

clean:
	rm -rf .build .build-manual

# ---- Installing -------------------------------------------------------------------------------------------------
#   make install PREFIX=~/.local          build release, then install for you alone (no root needed)
#   make install-build && sudo make install-files
#                                         build as yourself, install for every user into /usr/local as root
#   make install-files BIN_DIR=.build/debug PREFIX=/tmp/x    install binaries already built, building nothing of Crate's
#   make uninstall PREFIX=~/.local        remove exactly the files install-files writes (the list below), nothing else
# PREFIX defaults to /usr/local: the GNU and FHS place for programs installed outside the package manager, what
# `sudo make install` and packagers expect; a per-user install is one variable away (~/.local: Debian's ~/.profile puts ~/.local/bin on PATH).
# DESTDIR stages the files for a package: they go under $(DESTDIR)$(PREFIX), and name $(PREFIX) inside.
# Packaging/ holds the sources of the unit and the desktop entry (the icon is the web page's, Modules/FrontEnds/HTTP/Web/icons); the man pages are generated from the
# argument parser (swift-argument-parser's generate-manual, built from the checkout SwiftPM resolved for Crate, so
# the two agree on the help format) and the completions by the binaries themselves.
PREFIX ?= /usr/local
# `PREFIX=~/.local` reaches make unexpanded from shells other than bash (zsh, fish, quotes).
override PREFIX := $(patsubst %/,%,$(patsubst ~/%,$(HOME)/%,$(patsubst ~,$(HOME),$(PREFIX))))
DESTDIR ?=
BIN_DIR ?= $(RELEASE_BIN)
BINDIR = $(PREFIX)/bin
DATADIR = $(PREFIX)/share
MAN1DIR = $(DATADIR)/man/man1
# systemd --user reads units from /usr/local/lib/systemd/user and /usr/lib/systemd/user, and for one user from
# $XDG_DATA_HOME/systemd/user (~/.local/share/systemd/user), never ~/.local/lib (systemd.unit(5), "User Unit Search Path").
ifeq ($(PREFIX),$(HOME)/.local)
SYSTEMD_USER_UNIT_DIR ?= $(DATADIR)/systemd/user
else
SYSTEMD_USER_UNIT_DIR ?= $(PREFIX)/lib/systemd/user
endif
# Every file install-files writes; uninstall removes these and nothing else.
INSTALLED = $(BINDIR)/crate $(BINDIR)/crated \
	$(SYSTEMD_USER_UNIT_DIR)/crated.service \
	$(DATADIR)/applications/crate.desktop \
	$(DATADIR)/icons/hicolor/scalable/apps/crate.svg \
	$(MAN1DIR)/crate.1 $(MAN1DIR)/crated.1 \
	$(DATADIR)/bash-completion/completions/crate $(DATADIR)/bash-completion/completions/crated \
	$(DATADIR)/zsh/site-functions/_crate $(DATADIR)/zsh/site-functions/_crated \
	$(DATADIR)/fish/vendor_completions.d/crate.fish $(DATADIR)/fish/vendor_completions.d/crated.fish

ARGUMENT_PARSER = .build/checkouts/swift-argument-parser
GENERATE_MANUAL = .build-manual/debug/generate-manual
# The man pages' date: the last commit's, so a rebuild of the same tree writes the same pages.
MANUAL_DATE ?= $(shell git log -1 --format=%cs 2>/dev/null)
define build_generate_manual
@test -f $(ARGUMENT_PARSER)/Package.swift || $(SWIFT) package resolve
$(SWIFT) build --package-path $(ARGUMENT_PARSER) --scratch-path .build-manual --product generate-manual
endef

install: install-build
	@$(MAKE) --no-print-directory install-files

# Everything install-files needs that takes a build: the release binaries and the man page generator (its own
# scratch folder, .build-manual; only that tool is built there).
install-build: build
	$(build_generate_manual)

$(GENERATE_MANUAL):
	$(build_generate_manual)

install-files: $(GENERATE_MANUAL)
	@case "$(PREFIX)" in /*) ;; *) echo "make: PREFIX must be an absolute path, not '$(PREFIX)'" >&2; exit 2;; esac
	@case "$(PREFIX)" in *[!A-Za-z0-9._+@/-]*) echo "make: PREFIX '$(PREFIX)' has characters the unit's ExecStart and the desktop entry's Exec would have to quote; choose another" >&2; exit 2;; esac
	@for b in crate crated; do test -x "$(BIN_DIR)/$$b" || { echo "make: $(BIN_DIR)/$$b is not built (make install builds it; or give BIN_DIR)" >&2; exit 1; }; done
	@set -e; tmp="$$(mktemp -d)"; trap 'rm -rf "$$tmp"' EXIT; \
	for b in crate crated; do \
	  "$(GENERATE_MANUAL)" "$(BIN_DIR)/$$b" $(if $(MANUAL_DATE),--date $(MANUAL_DATE)) --output-directory "$$tmp"; \
	  for s in bash zsh fish; do "$(BIN_DIR)/$$b" --generate-completion-script $$s > "$$tmp/$$b.$$s"; done; \
	done; \
	sed 's|@bindir@|$(BINDIR)|g' Packaging/crated.service.in > "$$tmp/crated.service"; \
	sed 's|@bindir@|$(BINDIR)|g' Packaging/crate.desktop.in > "$$tmp/crate.desktop"; \
	put() { install -D -m "$$1" "$$2" "$$3"; echo "installed $$3"; }; \
	put 755 "$(BIN_DIR)/crate" "$(DESTDIR)$(BINDIR)/crate"; \
	put 755 "$(BIN_DIR)/crated" "$(DESTDIR)$(BINDIR)/crated"; \
	put 644 "$$tmp/crated.service" "$(DESTDIR)$(SYSTEMD_USER_UNIT_DIR)/crated.service"; \
	put 644 "$$tmp/crate.desktop" "$(DESTDIR)$(DATADIR)/applications/crate.desktop"; \
	put 644 Modules/FrontEnds/HTTP/Web/icons/crate.svg "$(DESTDIR)$(DATADIR)/icons/hicolor/scalable/apps/crate.svg"; \
	for b in crate crated; do \
	  put 644 "$$tmp/$$b.1" "$(DESTDIR)$(MAN1DIR)/$$b.1"; \
	  put 644 "$$tmp/$$b.bash" "$(DESTDIR)$(DATADIR)/bash-completion/completions/$$b"; \
	  put 644 "$$tmp/$$b.zsh" "$(DESTDIR)$(DATADIR)/zsh/site-functions/_$$b"; \
	  put 644 "$$tmp/$$b.fish" "$(DESTDIR)$(DATADIR)/fish/vendor_completions.d/$$b.fish"; \
	done
	@for f in $(INSTALLED); do test -f "$(DESTDIR)$$f" || { echo "make: $(DESTDIR)$$f was not installed" >&2; exit 1; }; done
	@echo "Installed into $(DESTDIR)$(PREFIX). Start the daemon at every login: systemctl --user enable --now crated"

# A unit still enabled from this prefix would be left as a dangling link (and a running daemon without its binary).
uninstall:
	@case "$(PREFIX)" in *[!A-Za-z0-9._+@/-]*|"") echo "make: PREFIX '$(PREFIX)' cannot be one install-files used" >&2; exit 2;; esac
	@link="$${XDG_CONFIG_HOME:-$$HOME/.config}/systemd/user/default.target.wants/crated.service"; \
	if [ -z "$(DESTDIR)" ] && [ "$$(readlink "$$link")" = "$(SYSTEMD_USER_UNIT_DIR)/crated.service" ]; then \
	  echo "make: crated is enabled from $(SYSTEMD_USER_UNIT_DIR): systemctl --user disable --now crated, then make uninstall again" >&2; exit 1; \
	fi
	@for f in $(INSTALLED); do \
	  if [ -e "$(DESTDIR)$$f" ] || [ -L "$(DESTDIR)$$f" ]; then rm -f "$(DESTDIR)$$f" && echo "removed $(DESTDIR)$$f"; fi; \
	done
