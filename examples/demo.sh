#!/usr/bin/env bash
# The main job, as far as Kiln goes today: read bundled TensorIR kernels, print them back,
# show their structural hash (the key of tuning records) and check them with the reference
# interpreter on random inputs. Later issues replace this with tuning a bundled model.
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tune="$build/cli/tune"
"$tune" ir "$here/tir/matmul.tir"
"$tune" ir "$here/tir/softmax_dynamic.tir" --dim n=64
