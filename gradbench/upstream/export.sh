#!/bin/sh
# Writes GradBench's tools/nabla entry into a GradBench checkout (or any folder):
#
#   sh gradbench/upstream/export.sh /path/to/gradbench
#
# tools/nabla gets the files kept here (Dockerfile, README.md, evals.txt) and the code the
# Docker image runs, copied from this folder's parent: tool.ts, json.ts and evals/*.ts. The
# copies are plain files; nothing in them refers back to this repository. Existing files of
# tools/nabla are overwritten, and an evals/*.ts no longer here is removed.
set -eu

if [ "$#" -ne 1 ]; then
  echo "usage: sh gradbench/upstream/export.sh <GradBench checkout>" >&2
  exit 2
fi

here=$(cd "$(dirname "$0")" && pwd)
gradbench=$(dirname "$here")
target=$1/tools/nabla

if [ ! -d "$1" ]; then
  echo "export.sh: $1 is not a folder" >&2
  exit 1
fi

mkdir -p "$target/evals"
rm -f "$target"/evals/*.ts
cp "$here/tools/nabla/Dockerfile" "$here/tools/nabla/README.md" "$here/tools/nabla/evals.txt" \
  "$target/"
cp "$gradbench/tool.ts" "$gradbench/json.ts" "$target/"
cp "$gradbench"/evals/*.ts "$target/evals/"
echo "export.sh: wrote $target"
