"""Checks that what Kiln prints of a Relax module loads in TVM to a structurally equal module.

For every Relax module TVM printed (tests/data/tvm/relax/*.relax, the TVM samples in
tests/ir/relax/testdata), the script has Kiln read it and print it again in the TVM 0.24+ dialect
(`tune tasks FILE --print --json`), parses both texts with TVM's parser, and compares them with
tvm.ir.assert_structural_equal. Modules printed without their metadata section cannot be read by
either side and are skipped. Run where apache-tvm is installed (it is not a CI dependency):

    /work/tvm-venv/bin/python tests/ir/relax/tvm/check_relax_with_tvm.py --tune build/cli/tune

Prints one line per module and a summary; exits 1 when any module differs or fails.
"""

import argparse
import glob
import os
import subprocess
import sys

import tvm
from tvm.script import from_source

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__))))))


def corpus():
    files = sorted(glob.glob(os.path.join(ROOT, "tests/data/tvm/relax/*.relax")))
    files += sorted(glob.glob(os.path.join(ROOT, "tests/ir/relax/testdata/tvm027_*.relax")))
    return files


def kiln_print(tune, path, dialect):
    out = subprocess.run([tune, "tasks", path, "--print", "--json", "--dialect", dialect],
                         capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip() or out.stdout.strip())
    # The module, then one JSON line (the task table).
    return out.stdout.rstrip("\n").rsplit("\n", 1)[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tune", default=os.path.join(ROOT, "build/cli/tune"))
    parser.add_argument("--dialect", default="tvm-0.24")
    parser.add_argument("files", nargs="*")
    args = parser.parse_args()
    results = {"equal": 0, "skipped": 0, "different": 0, "failed": 0}
    for path in args.files or corpus():
        name = os.path.relpath(path, ROOT)
        text = open(path).read()
        if "metadata[" in text and "metadata = tvm.ir.load_json(" not in text:
            print(f"skipped   {name}: printed without its metadata section")
            results["skipped"] += 1
            continue
        try:
            original = from_source(text)
            printed = kiln_print(args.tune, path, args.dialect)
            reread = from_source(printed)
        except Exception as e:  # noqa: BLE001 - every failure is reported by module
            print(f"failed    {name}: {str(e).splitlines()[-1] if str(e) else type(e).__name__}")
            results["failed"] += 1
            continue
        try:
            tvm.ir.assert_structural_equal(original, reread, map_free_vars=True)
        except ValueError as e:
            print(f"different {name}: {str(e).splitlines()[0][:300]}")
            results["different"] += 1
            continue
        print(f"equal     {name}")
        results["equal"] += 1
    print(" ".join(f"{k}={v}" for k, v in results.items()))
    return 1 if results["different"] or results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
