#!/usr/bin/env bash
# The main job, as far as Kiln goes today (compiling the tuned model comes next):
#  1. split a bundled transformer block (ONNX, symbolic sequence length) into tuning tasks:
#     every op legalized to TensorIR, fused, and deduplicated by structural hash;
#  2. run the three bundled models end to end in the reference executor and compare with
#     the outputs ONNX Runtime computed for the same inputs;
#  3. measure one kernel on this CPU, untuned and with a hand-written schedule (a trace):
#     generated C, built and timed in a sandbox, checked against the reference interpreter;
#  4. tune every task of the transformer block on this CPU: the design space sampled, ranked
#     by the XGBoost cost model, the best candidates built, timed and checked (tune run).
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tune="$build/cli/tune"

echo "== tasks of a transformer block"
"$tune" tasks "$here/models/transformer_block/model.onnx"
echo
echo "== the bundled models against ONNX Runtime"
"$tune" onnx-test "$here/models/mlp" "$here/models/transformer_block" "$here/models/cnn"
echo
echo "== a 128x128x128 matmul, untuned"
"$tune" kernel "$here/tir/matmul.tir" --show none
echo
echo "== the same matmul with the hand-written schedule of bench/traces/matmul_1024.json"
"$tune" kernel "$here/tir/matmul.tir" --trace "$here/../bench/traces/matmul_1024.json" --show none
echo
echo "== tune the transformer block's tasks on this CPU (${KILN_DEMO_TRIALS:-200} trials)"
"$tune" run "$here/models/transformer_block/model.onnx" --trials "${KILN_DEMO_TRIALS:-200}"
