#!/usr/bin/env bash
# One golden case: runs the anatomy command in CASE/args from the source
# root, as text and (when the command takes --format) as JSON, and compares
# stdout, stderr and the exit code with CASE/expected.*; the source root's
# path is written as <root> so the files do not depend on the checkout.
#   golden.sh BINARY ROOT CASE           check (exit 1 and a diff on a change)
#   golden.sh BINARY ROOT CASE --update  write the expected files anew
set -uo pipefail
bin=$1 root=$2 case=$3 update=${4:-}
cd "$root" || exit 2
read -r -a args < "$case/args"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

run_one() {  # $1: suffix of the expected files; the rest: extra arguments
  local suffix=$1; shift
  local rc=0
  "$bin" "${args[@]}" "$@" > "$out/stdout" 2> "$out/stderr" || rc=$?
  sed -i "s|$root|<root>|g" "$out/stdout" "$out/stderr"
  { cat "$out/stderr"; [ "$rc" = 0 ] || echo "exit $rc"; } > "$out/err"
  if [ -n "$update" ]; then
    cp "$out/stdout" "$case/expected.$suffix"
    if [ -s "$out/err" ]; then cp "$out/err" "$case/expected.$suffix.err"; else rm -f "$case/expected.$suffix.err"; fi
    return 0
  fi
  local bad=0
  diff -u "$case/expected.$suffix" "$out/stdout" || bad=1
  if [ -f "$case/expected.$suffix.err" ]; then
    diff -u "$case/expected.$suffix.err" "$out/err" || bad=1
  elif [ -s "$out/err" ]; then
    echo "unexpected stderr / exit code:"; cat "$out/err"; bad=1
  fi
  return $bad
}

status=0
run_one txt || status=1
if [ ! -f "$case/text-only" ]; then run_one json --format json || status=1; fi
[ -n "$update" ] && echo "updated $case"
exit $status
