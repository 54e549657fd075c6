#!/usr/bin/env bash
# check_generated.sh OUT GENERATOR FILE [RUN...]: FILE, checked in, must be exactly what GENERATOR
# writes to standard output today (run as RUN GENERATOR, e.g. RUN = python3). The generator's output
# goes to OUT, and any difference is printed as a diff against FILE.
set -euo pipefail
out="$1" generator="$2" file="$3"
shift 3
mkdir -p "$(dirname "$out")"
"$@" "$generator" > "$out"
if diff -u "$file" "$out"; then
  echo "PASS: $file is what $generator writes"
else
  echo "FAIL: $file differs from what $generator writes (above); regenerate it: $* $generator > $file"
  exit 1
fi
