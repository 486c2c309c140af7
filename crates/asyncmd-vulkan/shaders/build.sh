#!/usr/bin/env bash
# Compiles the shaders to the committed SPIR-V (needs glslc: Debian package glslc): builtin/
# holds the runtime's built-in shaders (asyncmd_ddi::ShaderId), meta/ the device's own kernels;
# names are stage_purpose_variant. The test `shaders_match_their_sources` fails when a .spv no
# longer matches its source.
set -euo pipefail
cd "$(dirname "$0")"
for src in builtin/*.vert builtin/*.frag builtin/*.comp meta/*.comp; do
  glslc --target-env=vulkan1.3 -O -o "$src.spv" "$src"
done
