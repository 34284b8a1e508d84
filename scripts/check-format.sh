#!/usr/bin/env bash
# Checks that the C++ sources follow .clang-format: every tracked *.cpp / *.hpp / *.h, or the files
# given as arguments. Every tracked file, not the files a change touched: a fresh clone in CI has no
# base to diff against, and once the tree is formatted the two rules agree.
#   scripts/check-format.sh            check; exit 1 listing the files that differ
#   scripts/check-format.sh --fix      reformat those files in place
# clang-format 14 (Debian 12's clang-format): other major versions format some constructs
# differently, so they are refused rather than giving a different verdict.
set -euo pipefail
cd "$(dirname "$0")/.."

fix=0
if [ "${1:-}" = "--fix" ]; then
  fix=1
  shift
fi

tool=""
for candidate in "${CLANG_FORMAT:-}" clang-format-14 clang-format; do
  if [ -n "$candidate" ] && command -v "$candidate" >/dev/null; then
    tool=$candidate
    break
  fi
done
if [ -z "$tool" ]; then
  echo "check-format: clang-format 14 not found (Debian: apt-get install clang-format)" >&2
  exit 2
fi
version=$("$tool" --version | sed -n 's/.*version \([0-9]*\)\..*/\1/p')
if [ "$version" != 14 ]; then
  echo "check-format: $tool is version ${version:-unknown}, not 14 (set CLANG_FORMAT=...)" >&2
  exit 2
fi

if [ $# -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(git ls-files -- '*.cpp' '*.hpp' '*.h')
fi

# One clang-format process for all files (one per file costs minutes on a loaded machine); its
# diagnostics start with "FILE:LINE:COL: error:".
status=0
report=$("$tool" --style=file --dry-run --Werror "${files[@]}" 2>&1) || status=$?
mapfile -t bad < <(sed -n 's/^\(.*\):[0-9]*:[0-9]*: error: .*/\1/p' <<<"$report" | sort -u)
if [ $status -ne 0 ] && [ ${#bad[@]} -eq 0 ]; then
  echo "check-format: $tool failed (exit $status):" >&2
  echo "$report" >&2
  exit 2
fi

if [ ${#bad[@]} -eq 0 ]; then
  echo "check-format: ${#files[@]} files follow .clang-format"
  exit 0
fi
if [ $fix -eq 1 ]; then
  "$tool" --style=file -i "${bad[@]}"
  echo "check-format: reformatted ${#bad[@]} file(s):"
  printf '  %s\n' "${bad[@]}"
  exit 0
fi
echo "check-format: ${#bad[@]} of ${#files[@]} files differ from .clang-format:" >&2
printf '  %s\n' "${bad[@]}" >&2
echo "fix with: scripts/check-format.sh --fix   (or: $tool -i FILE...)" >&2
exit 1
