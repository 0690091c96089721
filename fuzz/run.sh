#!/usr/bin/env bash
# Runs every fuzz target for a bounded time (default 60 s each), seeded with the real files.
# Needs cargo-fuzz (`cargo install cargo-fuzz`). On stable Rust, RUSTC_BOOTSTRAP=1 lets
# cargo-fuzz pass the nightly-only flags it needs; no sanitizer, since scenetree has no unsafe
# code and the targets look for panics. Exit status is non-zero when a target finds a crash
# (the input is saved under fuzz/artifacts/).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
export RUSTC_BOOTSTRAP=1
mkdir -p fuzz/corpus/composite fuzz/corpus/crdt fuzz/corpus/components fuzz/corpus/codec \
  fuzz/corpus/native fuzz/corpus/scenario
for f in tests/fixtures/dcl/*/main.composite tests/fixtures/ecs/scene.composite; do
  [ -f "$f" ] && cp "$f" "fuzz/corpus/composite/$(echo "$f" | tr '/' '_')"
done
for f in tests/fixtures/dcl/*/main.crdt tests/fixtures/ecs/scene.crdt; do
  [ -f "$f" ] && cp "$f" "fuzz/corpus/crdt/$(echo "$f" | tr '/' '_')"
done
for f in scenes/*.json tests/fixtures/native/*.json; do
  case "$f" in
    *.scenario.json) cp "$f" "fuzz/corpus/scenario/$(basename "$f")" ;;
    *) if [ "$(stat -c %s "$f")" -le 262144 ]; then cp "$f" "fuzz/corpus/native/$(basename "$f")"; fi ;;
  esac
done
for target in composite crdt components codec native scenario; do
  echo "== fuzz target $target for ${seconds}s"
  cargo fuzz run --sanitizer none "$target" "fuzz/corpus/$target" -- \
    -max_total_time="$seconds" -max_len=262144 -print_final_stats=1
done
