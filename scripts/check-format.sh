#!/usr/bin/env bash
# Lists the tracked C and C++ files that break .clang-format (clang-format-19),
# with how many lines each would change; exits 1 when there is any. With
# --fix, rewrites them in place. Names of files as arguments check only those.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
format=clang-format-19
command -v "$format" >/dev/null || { echo "check-format: $format is not installed (scripts/install-deps.sh installs it)" >&2; exit 2; }
fix=0
if [ "${1:-}" = "--fix" ]; then fix=1; shift; fi
if [ $# -gt 0 ]; then files=("$@"); else mapfile -t files < <(git ls-files '*.c' '*.h' '*.cpp'); fi
bad=0
for f in "${files[@]}"; do
  changed=$("$format" "$f" | diff "$f" - | grep -c '^<' || true)
  [ "$changed" -eq 0 ] && continue
  bad=$((bad + 1))
  if [ $fix -eq 1 ]; then "$format" -i "$f"; echo "fixed $f"; else echo "$f: $changed lines"; fi
done
[ $fix -eq 1 ] && exit 0
echo "check-format: $bad of ${#files[@]} files break .clang-format" >&2
[ $bad -eq 0 ]
