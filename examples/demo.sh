#!/usr/bin/env bash
# The main job: tune a bundled transformer block on this CPU, compile it, run it, and compare
# it with ONNX Runtime.
#  1. split the model (ONNX, symbolic sequence length, bound to 128 here) into tuning tasks:
#     every op legalized to TensorIR, fused, and deduplicated by structural hash;
#  2. check the bundled models end to end in the reference executor against the outputs ONNX
#     Runtime computed for the same inputs;
#  3. tune every task (tune run: the embedded coordinator and worker in this process; the
#     design space sampled, ranked by the XGBoost cost model, the best candidates built, timed
#     and checked against the reference; every measurement stored in a SQLite database);
#  4. compile the model twice into artifacts: with the best records, and untuned;
#  5. time both and ONNX Runtime on the same shapes and threads;
#  6. write the HTML report of the tuning job.
# KILN_DEMO_TRIALS (default 200) is the tuning budget; the outputs go to BUILD/demo/.
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
tune="$build/cli/tune"
python="${KILN_VENV:-$root/.venv}/bin/python"
model="$here/models/transformer_block/model.onnx"
trials=${KILN_DEMO_TRIALS:-200}
threads=2
out="$build/demo"
rm -rf "$out"
mkdir -p "$out"
db="$out/tuning.db"

echo "== 1. the tasks of a transformer block (seq_len=128)"
"$tune" tasks "$model" --dim seq_len=128
echo
echo "== 2. the bundled models in the reference executor against ONNX Runtime"
"$tune" onnx-test "$here/models/mlp" "$here/models/transformer_block" "$here/models/cnn"
echo
echo "== 3. tune the transformer block's tasks on this CPU ($trials trials; database $db)"
"$tune" run "$model" --dim seq_len=128 --trials "$trials" --db "$db" -o "$out/best.jsonl"
echo
echo "== 4. compile it with the best records, and untuned"
"$tune" compile "$model" --dim seq_len=128 --db "$db" -o "$out/tuned.kiln"
"$tune" compile "$model" --dim seq_len=128 --no-db --library never -o "$out/untuned.kiln" > /dev/null
echo
echo "== 5. run it: tuned, untuned and ONNX Runtime ($threads threads, seq_len=128)"
"$tune" bench "$out/tuned.kiln" --threads "$threads" --json | tail -n 1 > "$out/tuned.json"
"$tune" bench "$out/untuned.kiln" --threads "$threads" --repeat 3 --min-repeat-ms 0 --json |
  tail -n 1 > "$out/untuned.json"
"$python" "$root/bench/ort_latency.py" "$model" --input x=1,128,64 --threads "$threads" |
  tail -n 1 > "$out/ort.json"
"$python" - "$out" <<'EOF'
import json, sys
out = sys.argv[1]
tuned, untuned, ort = (json.load(open(f"{out}/{n}.json")) for n in ("tuned", "untuned", "ort"))
t, u, o = tuned["median_s"], untuned["median_s"], ort["latency_s"]
print(f"  Kiln tuned      {t * 1e3:9.3f} ms   peak {tuned['peak_bytes'] / 1e6:6.2f} MB")
print(f"  Kiln untuned    {u * 1e3:9.3f} ms   tuned is {u / t:.1f}x faster")
print(f"  ONNX Runtime    {o * 1e3:9.3f} ms   peak {ort['peak_bytes'] / 1e6:6.2f} MB;"
      f" ONNX Runtime / Kiln tuned = {o / t:.2f}")
EOF
echo
echo "== 6. the report of the tuning job"
"$tune" report last --db "$db" -o "$out/report.html"
echo "  open $out/report.html in a browser (one self-contained page, no network)"
