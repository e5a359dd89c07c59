"""Checks that what Kiln prints of TensorIR loads in TVM to a structurally equal function.

For every PrimFunc file (default: tests/data/tvm/tir/*.tir, TVM 0.27's own output), Kiln
parses it and prints it again (`tune ir FILE --print`, the TVM 0.24+ dialect); TVM parses both
the original and Kiln's text, and tvm.ir.assert_structural_equal compares them. Needs TVM
(apache-tvm from PyPI, see tests/data/tvm/make_tvm_corpus.py); CI does not run it.

    /work/tvm-venv/bin/python tests/ir/text/check_with_tvm.py --tune build/cli/tune [FILES...]
"""

import argparse
import glob
import os
import subprocess
import sys

import tvm


def kiln_print(tune, path):
    out = subprocess.run([tune, "ir", path, "--print", "--no-run", "--json"],
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"tune ir failed: {out.stderr.strip()[-400:]}")
    lines = out.stdout.rstrip("\n").split("\n")
    return "\n".join(lines[:-1]) + "\n"  # the last line is the JSON summary


def tvm_parse(text):
    return tvm.script.from_source(text)


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tune", default=os.path.join(root, "build", "cli", "tune"))
    parser.add_argument("files", nargs="*")
    args = parser.parse_args()
    files = args.files or sorted(glob.glob(os.path.join(root, "tests/data/tvm/tir/*.tir")))
    failures = 0
    for path in files:
        name = os.path.relpath(path, root)
        try:
            original = tvm_parse(open(path).read())
            printed = kiln_print(args.tune, path)
            tvm.ir.assert_structural_equal(original, tvm_parse(printed), map_free_vars=True)
            print(f"equal      {name}")
        except Exception as e:  # pylint: disable=broad-except
            failures += 1
            message = " ".join(str(e).split())[:300]
            print(f"DIFFERENT  {name}: {type(e).__name__}: {message}")
    print(f"{len(files) - failures} of {len(files)} functions: TVM reads Kiln's text to an equal "
          f"function")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
