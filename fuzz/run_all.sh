#!/usr/bin/env bash
# Runs every libFuzzer binary (*_fuzzer) in BUILD_DIR/fuzz for SECONDS each, starting from a
# fresh copy of its seed corpus; exits non-zero if any fuzzer finds a failure.
#   usage: fuzz/run_all.sh BUILD_DIR [SECONDS]
# A new fuzzer needs one line in SEEDS below (its seed folders, relative to the repository), or
# a folder fuzz/corpus/<fuzzer name>/ by convention; a fuzz/<fuzzer name>.dict is used if present.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${1:?usage: fuzz/run_all.sh BUILD_DIR [SECONDS]}
seconds=${2:-60}

declare -A SEEDS=(
  [ir_text_fuzzer]="tests/ir/testdata/tir tests/data/tvm/tir"
  [onnx_import_fuzzer]="tests/ir/frontend/testdata/models tests/ir/frontend/testdata/malformed examples/models/gcn_layer"
  [trace_fuzzer]="tests/search/testdata/traces"
  [relax_text_fuzzer]="tests/ir/relax/testdata tests/data/tvm/relax"
  [tvm_graph_fuzzer]="tests/data/tvm_db/graphs"
)

shopt -s nullglob
fuzzers=("$build_dir"/fuzz/*_fuzzer)
if [ ${#fuzzers[@]} -eq 0 ]; then
  echo "run_all.sh: no *_fuzzer binaries in $build_dir/fuzz" >&2
  exit 1
fi

failed=()
for fuzzer in "${fuzzers[@]}"; do
  [ -x "$fuzzer" ] || continue
  name=$(basename "$fuzzer")
  work=$(mktemp -d "${TMPDIR:-/tmp}/kiln-fuzz-$name.XXXXXX")
  mkdir -p "$work/corpus" "$work/artifacts"
  seed_dirs=${SEEDS[$name]:-}
  [ -d "$here/fuzz/corpus/$name" ] && seed_dirs="$seed_dirs fuzz/corpus/$name"
  for dir in $seed_dirs; do
    find "$here/$dir" -type f -exec cp {} "$work/corpus/" \;
  done
  extra=()
  [ -f "$here/fuzz/$name.dict" ] && extra+=("-dict=$here/fuzz/$name.dict")
  echo "== $name: ${seconds}s, $(ls "$work/corpus" | wc -l) seeds, work dir $work"
  if "$fuzzer" "$work/corpus" "${extra[@]}" -max_total_time="$seconds" -timeout=10 \
      -rss_limit_mb=2048 -artifact_prefix="$work/artifacts/" -print_final_stats=1 \
      >"$work/log.txt" 2>&1; then
    tail -n 3 "$work/log.txt"
    echo "== $name: ok"
  else
    tail -n 60 "$work/log.txt"
    echo "== $name: FAILED (log and crashing input in $work)" >&2
    failed+=("$name")
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "run_all.sh: failing fuzzers: ${failed[*]}" >&2
  exit 1
fi
echo "run_all.sh: all fuzzers passed"
