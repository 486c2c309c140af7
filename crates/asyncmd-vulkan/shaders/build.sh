#!/usr/bin/env bash
# Compiles the built-in shaders to the committed SPIR-V (needs glslc: Debian package glslc).
# The test `shaders_match_their_sources` fails when a .spv no longer matches its source.
set -euo pipefail
cd "$(dirname "$0")"
for src in *.vert *.frag *.comp; do
  glslc --target-env=vulkan1.3 -O -o "$src.spv" "$src"
done
