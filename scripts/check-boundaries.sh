#!/usr/bin/env bash
# The architecture's lines, checked on the sources (make test runs this before building):
#   CrateDomain imports Foundation (and the C library) only; CrateCore imports no plugin; front ends import neither CrateStorage, GRDB
#   nor a plugin (only Core and the composition root); a plugin imports no other plugin.
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

report "Core imports a plugin" < <(imports Modules/CrateCore "$plugin_re")
report "a front end imports storage or a plugin" < <(imports Apps "CrateStorage|GRDB|$plugin_re")
report "Domain imports more than Foundation" < <(grep -rnE '^\s*(public )?import ' Modules/CrateDomain --include='*.swift' | grep -vE 'import (Foundation|Synchronization|Glibc)$' || true)
for dir in Plugins/Sources/* Plugins/Decoders/* Plugins/Outputs/*; do
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
echo "check-boundaries: ok ($(echo "$plugins" | wc -l) plugins; Domain, Core, front ends and plugins keep their lines)"
