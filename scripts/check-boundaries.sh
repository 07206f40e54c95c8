#!/usr/bin/env bash
# The architecture's lines, checked on the sources (make test runs this before building):
#   CrateDomain imports Foundation (and the C library) only; CrateCore imports no plugin and no front end; front ends
#   (Modules/FrontEnds) and the apps import neither CrateStorage, GRDB nor a plugin; a plugin imports no other plugin
#   and no front end; only Core builds and publishes events (front ends and apps subscribe); every Swift target lives
#   under Modules/, Plugins/, Apps/ or Tests/ (Benchmarks/ and Fuzz/ hold tools); threads start through WorkerThread;
#   nothing outside Tests/ imports FoundationNetworking.
# The compiler holds the rest (InternalImportsByDefault, MemberImportVisibility; see Package.swift).
set -euo pipefail
cd "$(dirname "$0")/.."

plugins=$(grep -oE 'plugin\("[A-Za-z0-9]+"' Package.swift | sed -E 's/plugin\("([A-Za-z0-9]+)"/\1/' | sort -u)
[ -n "$plugins" ] || { echo "check-boundaries: found no plugin targets in Package.swift" >&2; exit 1; }
plugin_re=$(echo "$plugins" | paste -sd'|')
failures=0
fail() { echo "boundary broken: $*" >&2; failures=$((failures + 1)); }
# Reports every line on standard input as a broken boundary of the kind given.
report() { while IFS= read -r hit; do if [ -n "$hit" ]; then fail "$1: $hit"; fi; done; }
imports() { grep -rnE "^\s*(@testable |public |internal |package )?import +($2)\b" $1 --include='*.swift' || true; }

front_ends=$(grep -oE 'frontEnd\("[A-Za-z0-9]+"' Package.swift | sed -E 's/frontEnd\("([A-Za-z0-9]+)"/\1/' | sort -u)
[ -n "$front_ends" ] || { echo "check-boundaries: found no front-end targets in Package.swift" >&2; exit 1; }
front_end_re=$(echo "$front_ends" | paste -sd'|')
report "Core imports a plugin or a front end" < <(imports Modules/CrateCore "$plugin_re|$front_end_re")
report "a front end imports storage or a plugin" < <(imports "Apps Modules/FrontEnds" "CrateStorage|GRDB|$plugin_re")
report "a plugin imports a front end" < <(imports Plugins "$front_end_re")
# Events: Core's services publish after they write; front ends and apps only subscribe and derive (a switch over
# the enum, EventMessage for the stream). Building one (CrateEvent.x(…), a `.player(.…)`-style literal passed on)
# or publishing one outside Core breaks the line.
report "a front end or app publishes an event" < <(grep -rnE '\bpublish\(|EventBus\(\)' Apps Modules/FrontEnds --include='*.swift' || true)
report "a front end or app builds an event" < <(grep -rnE 'CrateEvent\.[a-z]+\(|CrateEvent\(|(LibraryChange|PlayerChange|QueueChange|OptionsChange|FeedChange)\.[a-z]+\(' Apps Modules/FrontEnds --include='*.swift' || true)
# Every Swift target under the design card's folders.
while IFS= read -r path; do
  case "$path" in Modules/*|Plugins/*|Apps/*|Tests/*|Benchmarks/*|Fuzz/*) ;; *) fail "a Swift target outside Modules/, Plugins/, Apps/, Tests/: path \"$path\" in Package.swift";; esac
done < <(grep -oE 'path: "[^"]+"' Package.swift | sed -E 's/path: "([^"]+)"/\1/')
report "a Swift file outside Modules/, Plugins/, Apps/, Tests/, Benchmarks/, Fuzz/" < <(git ls-files --cached --others --exclude-standard -- '*.swift' | grep -vE '^(Modules|Plugins|Apps|Tests|Benchmarks|Fuzz)/|^Package\.swift$' || true)
# Threads start through WorkerThread, which releases the body before the thread's destructors run: Foundation's own
# `Thread { }` keeps the block until then, and a GRDB database released there corrupts the heap (WorkerThread.swift).
report "a thread started without WorkerThread" < <(grep -rnE '\bThread *\{|Thread\(block:|detachNewThread|Thread\(target:' Modules Plugins Apps Tests Benchmarks Fuzz --include='*.swift' | grep -v 'Modules/CrateDomain/Support/WorkerThread.swift' || true)
# FoundationNetworking links libcurl (and its 28 libraries) into every process; HTTP goes through CrateClient's
# HTTPExchange or the CCurl loader (Tests/CrateAppsTests/CLITests.swift, StartUpLibraryTests, checks the binaries).
report "the product imports FoundationNetworking" < <(imports "Modules Plugins Apps" FoundationNetworking)
report "Domain imports more than Foundation" < <(grep -rnE '^\s*(public )?import ' Modules/CrateDomain --include='*.swift' | grep -vE 'import (Foundation|Synchronization|Glibc)$' || true)
for dir in Plugins/Sources/* Plugins/Decoders/* Plugins/Outputs/* Plugins/Encoders/*; do
  [ -d "$dir" ] || continue
  own=$( (grep -E "plugin\(\"[A-Za-z0-9]+\", path: \"$dir\"" Package.swift || true) | sed -E 's/.*plugin\("([A-Za-z0-9]+)".*/\1/')
  others=$(echo "$plugins" | grep -vx "$own" | paste -sd'|')
  report "a plugin imports another plugin" < <(imports "$dir" "$others")
done
# Core's target must not depend on a plugin either (an import is not the only way in).
core_deps=$(awk '/name: "CrateCore"/,/path: "Modules\/CrateCore"/' Package.swift)
for p in $plugins; do
  if echo "$core_deps" | grep -q "\"$p\""; then fail "CrateCore depends on plugin $p in Package.swift"; fi
done

if [ "$failures" -gt 0 ]; then echo "check-boundaries: $failures problem(s)" >&2; exit 1; fi
echo "check-boundaries: ok ($(echo "$plugins" | wc -l) plugins, $(echo "$front_ends" | wc -l) front ends; Domain, Core, front ends and plugins keep their lines; only Core publishes events)"
