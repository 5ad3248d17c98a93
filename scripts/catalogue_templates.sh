#!/usr/bin/env bash
# Prints the built-in templates, one line, space-separated: the list
# templates/catalogue.cmake builds memtune with. Scripts that run "every
# template" read it here, so a template added there is not left out.
set -euo pipefail
sed -n '/set(MEMTUNE_TEMPLATES/,/)/p' "$(dirname "$0")/../templates/catalogue.cmake" | grep -v 'set(\|)' |
  tr -d ' ' | tr '\n' ' ' | sed 's/ *$//'
echo
