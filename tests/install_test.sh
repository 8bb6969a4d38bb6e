#!/usr/bin/env bash
# An installed anatomy finds its data beside itself, from any directory:
# `cmake --install BUILD --prefix P`, then P/bin/anatomy validate run from /
# lists every shipped case and an H100 case reads P's calibration table;
# ANATOMY_DATA_DIR naming no folder is one clear error, exit 2.
#   install_test.sh BUILD SOURCE
set -euo pipefail
build=$1 source=$2
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" > /dev/null
cd /
cases=$(ls "$source"/validation/*.yaml | wc -l)
listed=$("$prefix/bin/anatomy" validate -q --format json | grep -c '"case":')
[ "$listed" = "$cases" ] || { echo "installed validate ran $listed cases, want $cases"; exit 1; }
header=$("$prefix/bin/anatomy" run "$prefix/share/anatomy/validation/a12-mpt-7b-8gpus.yaml" | grep '^# compute:')
case "$header" in
  *"$prefix/share/anatomy/calibration/h200.json"*) ;;
  *) echo "installed run did not read its own calibration table: $header"; exit 1 ;;
esac
rc=0
err=$(ANATOMY_DATA_DIR=/nonexistent "$prefix/bin/anatomy" validate 2>&1) || rc=$?
[ "$rc" = 2 ] || { echo "ANATOMY_DATA_DIR=/nonexistent: exit $rc, want 2"; exit 1; }
[ "$err" = "anatomy: ANATOMY_DATA_DIR: '/nonexistent' is not a folder" ] || { echo "unexpected error: $err"; exit 1; }
echo "installed anatomy: $listed cases found from /"
