#!/usr/bin/env bash
# The viewport figures of docs/performance.md on a lent machine's GPU, without Rust: the
# viewport crate's bench (upload, in-place updates, offscreen render) and the gizmo-drag
# frames in the 65,024-entity scene (viewport_drag), both on the GPU's EGL device
# (SCENETREE_HEADLESS_GPU=1) instead of Mesa's software one.
#
# Prepare here: `bash bench/device/scaling.sh --build` also builds these two into bench/device/bin.
# On the lent machine, first make its GPU's EGL reachable (see the device tool's README: the
# glvnd loader packages unpacked into /, and __EGL_VENDOR_LIBRARY_FILENAMES naming the
# driver's vendor file), then: bash bench/device/viewport.sh
set -euo pipefail
bin=$(cd "$(dirname "$0")" && pwd)/bin
for packed in "$bin"/viewport.xz "$bin"/viewport_drag.xz; do
    xz -dkf "$packed"
done
chmod +x "$bin/viewport" "$bin/viewport_drag"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader

cd "$(mktemp -d)" # criterion writes its reports under the working directory
export SCENETREE_HEADLESS_GPU=1
echo "== viewport (crates/viewport/benches/viewport.rs)"
"$bin/viewport" --bench --warm-up-time 1 --measurement-time 2 --noplot 2>&1 | grep -E '^OpenGL|^viewport|time:'
echo "== viewport_drag (benches/viewport_drag.rs)"
"$bin/viewport_drag" --bench 'static_frame|drag_frame|gpu_update|tab_update_incremental' --warm-up-time 1 --noplot 2>&1 |
    grep -E '^OpenGL|^viewport|time:'
