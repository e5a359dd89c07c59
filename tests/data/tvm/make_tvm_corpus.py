"""Makes Kiln's corpus of what TVM prints: the test data for reading TVM's dialects.

Everything under tests/data/tvm/ except this script and README.md is written by it, with the
apache-tvm package from PyPI (CI never installs TVM; the outputs are committed):

  tir/<op>.tir, tir/<op>_dyn.tir   PrimFuncs that Relax LegalizeOps makes of one op each,
                                   static shapes and symbolic ones (`n = TypeVar("n")`),
                                   exactly as `PrimFunc.script()` prints them.
  relax/<model>.relax              Relax modules: TVM's ONNX front end on the bundled
                                   examples/models/*/model.onnx and on small models made
                                   here, and relax.frontend.nn exports (entry `forward`);
                                   `*_meta.relax` are printed with show_meta=True (weights
                                   in the metadata section), `*_params.relax` take the
                                   weights as parameters, `*_legalized.relax` after
                                   LegalizeOps (PrimFuncs and R.call_tir in one module).
  database/                        a MetaSchedule tuning database (JSONDatabase) from a few
                                   trials of ms.tune_tir on a matmul and a fused dense + bias
                                   + ReLU: database_workload.json, database_tuning_record.json,
                                   each workload printed as TVMScript (workload_<w>.tir, w its
                                   line in database_workload.json, a record's first field), and
                                   per record line i the trace as TVM prints it (record_<i>.py)
                                   and what TVM's replay gives (record_<i>_scheduled.tir), so
                                   that a test replays a trace without TVM's JSON graph.
  database/handwritten/            the same for hand-written schedules with fixed decisions,
                                   one per group of instruction kinds, so that every kind's
                                   JSON shape is in some record.
  manifest.json                    one entry per file: what made it and its symbolic dims.

Set-up (outside the repository; nothing here goes into the project's .venv):
    python3 -m venv /work/tvm-venv
    /work/tvm-venv/bin/pip install apache-tvm==0.27.0.post1 apache-tvm-ffi==0.1.14.post1 onnx
(apache-tvm-ffi 0.1.15.post2 crashes TVM's JSON writer.)

Run:
    /work/tvm-venv/bin/python tests/data/tvm/make_tvm_corpus.py            # tir/ and relax/
    /work/tvm-venv/bin/python tests/data/tvm/make_tvm_corpus.py --tune     # also database/

tir/ and relax/ are deterministic: running the script again rewrites them identically.
database/database_*.json come from real measurements (run times, and the search follows
them), so they are only rewritten with --tune; what is printed from them is rewritten always.
"""

import argparse
import json
import os
import shutil
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import tvm
from tvm import relax, tirx

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
MODELS = os.path.join(ROOT, "examples", "models")

MANIFEST = []


def write(rel, text, **info):
    """Writes one corpus file and records it in the manifest."""
    path = os.path.join(HERE, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if not text.endswith("\n"):
        text += "\n"
    with open(path, "w") as f:
        f.write(text)
    MANIFEST.append(dict(file=rel, **info))


# ---------------------------------------------------------------------------------------------
# tir/: one Relax op at a time through LegalizeOps.

F32 = "float32"
I64 = "int64"


def T(shape, dtype=F32):
    return relax.TensorType(shape, dtype)


def legalize_one(params, make_call):
    """The PrimFuncs LegalizeOps makes for a function whose body is make_call(*params)."""
    bb = relax.BlockBuilder()
    vars_ = [relax.Var(name, ty) for name, ty in params]
    with bb.function("main", vars_):
        with bb.dataflow():
            out = bb.emit_output(make_call(*vars_))
        bb.emit_func_output(out)
    mod = relax.transform.LegalizeOps()(bb.get())
    funcs = [(gv.name_hint, f) for gv, f in mod.functions.items() if isinstance(f, tirx.PrimFunc)]
    return sorted(funcs, key=lambda item: item[0])


def sym(name):
    return tirx.Var(name, I64)


def tir_cases():
    """(name, params, call, symbolic dims) for every op; params as (name, TensorType)."""
    n = sym("n")
    op = relax.op
    nn = relax.op.nn
    cases = []

    def add(name, params, call, dims=()):
        cases.append((name, params, call, list(dims)))

    # Linear algebra.
    add("matmul", [("x", T((16, 32))), ("w", T((32, 24)))], op.matmul)
    add("matmul_dyn", [("x", T((n, 32))), ("w", T((32, 24)))], op.matmul, ["n"])
    add("batch_matmul", [("x", T((2, 8, 16))), ("w", T((2, 16, 12)))], op.matmul)
    add("linear", [("x", T((4, 16))), ("w", T((8, 16))), ("b", T((8,)))],
        lambda x, w, b: op.linear(x, w, b))
    add("einsum", [("x", T((4, 6))), ("y", T((6, 5)))], lambda x, y: op.einsum([x, y], "ij,jk->ik"))
    # Convolutions and pools.
    add("conv2d", [("x", T((1, 3, 10, 10))), ("w", T((4, 3, 3, 3)))],
        lambda x, w: nn.conv2d(x, w, strides=1, padding=1))
    add("conv2d_stride_groups", [("x", T((1, 4, 9, 9))), ("w", T((4, 2, 3, 3)))],
        lambda x, w: nn.conv2d(x, w, strides=2, padding=(1, 0, 1, 0), groups=2))
    add("conv2d_dyn", [("x", T((n, 3, 8, 8))), ("w", T((4, 3, 3, 3)))],
        lambda x, w: nn.conv2d(x, w, padding=1), ["n"])
    add("conv1d", [("x", T((1, 3, 12))), ("w", T((2, 3, 3)))], lambda x, w: nn.conv1d(x, w, padding=1))
    add("conv2d_transpose", [("x", T((1, 3, 5, 5))), ("w", T((3, 2, 3, 3)))],
        lambda x, w: nn.conv2d_transpose(x, w, strides=2, padding=1))
    add("max_pool2d", [("x", T((1, 3, 9, 9)))],
        lambda x: nn.max_pool2d(x, pool_size=3, strides=2, padding=1))
    add("max_pool2d_dyn", [("x", T((n, 2, 8, 8)))],
        lambda x: nn.max_pool2d(x, pool_size=2, strides=2), ["n"])
    add("avg_pool2d", [("x", T((1, 3, 8, 8)))],
        lambda x: nn.avg_pool2d(x, pool_size=3, strides=1, padding=1, count_include_pad=False))
    add("avg_pool2d_include_pad", [("x", T((1, 2, 6, 6)))],
        lambda x: nn.avg_pool2d(x, pool_size=3, strides=2, padding=1, count_include_pad=True))
    add("adaptive_avg_pool2d", [("x", T((1, 4, 7, 7)))],
        lambda x: nn.adaptive_avg_pool2d(x, output_size=(1, 1)))
    add("pad", [("x", T((2, 3, 4)))], lambda x: nn.pad(x, (0, 0, 1, 1, 2, 0), pad_value=0.5))
    # Normalizations and activations.
    add("softmax", [("x", T((8, 32)))], lambda x: nn.softmax(x, axis=-1))
    add("softmax_dyn", [("x", T((n, 32)))], lambda x: nn.softmax(x, axis=-1), ["n"])
    add("log_softmax", [("x", T((4, 16)))], lambda x: nn.log_softmax(x, axis=1))
    add("layer_norm", [("x", T((4, 8, 16))), ("g", T((16,))), ("b", T((16,)))],
        lambda x, g, b: nn.layer_norm(x, g, b, axes=[-1], epsilon=1e-5))
    add("layer_norm_dyn", [("x", T((n, 16))), ("g", T((16,))), ("b", T((16,)))],
        lambda x, g, b: nn.layer_norm(x, g, b, axes=[-1]), ["n"])
    add("group_norm", [("x", T((1, 4, 3, 3))), ("g", T((4,))), ("b", T((4,)))],
        lambda x, g, b: nn.group_norm(x, g, b, num_groups=2, channel_axis=1, axes=[2, 3]))
    add("rms_norm", [("x", T((4, 16))), ("w", T((16,)))], lambda x, w: nn.rms_norm(x, w, axes=-1))
    add("batch_norm",
        [("x", T((1, 3, 4, 4))), ("g", T((3,))), ("b", T((3,))), ("m", T((3,))), ("v", T((3,)))],
        lambda x, g, b, m, v: relax.TupleGetItem(nn.batch_norm(x, g, b, m, v, axis=1, training=False), 0))
    add("relu", [("x", T((4, 16)))], nn.relu)
    add("gelu", [("x", T((4, 16)))], nn.gelu)
    add("gelu_tanh", [("x", T((4, 16)))], nn.gelu_tanh)
    add("silu", [("x", T((4, 16)))], nn.silu)
    add("sigmoid", [("x", T((4, 16)))], op.sigmoid)
    add("tanh", [("x", T((4, 16)))], op.tanh)
    add("exp_dyn", [("x", T((n, 16)))], op.exp, ["n"])
    add("erf", [("x", T((4, 16)))], op.erf)
    add("sqrt", [("x", T((4, 16)))], op.sqrt)
    add("clip", [("x", T((4, 16)))], lambda x: op.clip(x, -1.0, 1.0))
    # Elementwise binary with broadcasting.
    add("add_broadcast", [("x", T((4, 1, 8))), ("y", T((3, 1)))], op.add)
    add("add_dyn", [("x", T((n, 16))), ("y", T((16,)))], op.add, ["n"])
    add("multiply", [("x", T((4, 8))), ("y", T((4, 8)))], op.multiply)
    add("divide", [("x", T((4, 8))), ("y", T((8,)))], op.divide)
    add("power", [("x", T((4, 8))), ("y", T((4, 8)))], op.power)
    add("maximum", [("x", T((4, 8))), ("y", T((4, 8)))], op.maximum)
    add("less", [("x", T((4, 8))), ("y", T((4, 8)))], op.less)
    add("where", [("c", T((4, 8), "bool")), ("x", T((4, 8))), ("y", T((4, 8)))], op.where)
    add("astype", [("x", T((4, 8)))], lambda x: op.astype(x, "float16"))
    # Reductions.
    add("sum", [("x", T((4, 8, 6)))], lambda x: op.sum(x, axis=[1], keepdims=False))
    add("sum_dyn", [("x", T((n, 16)))], lambda x: op.sum(x, axis=[1], keepdims=True), ["n"])
    add("mean", [("x", T((4, 8, 6)))], lambda x: op.mean(x, axis=[1, 2], keepdims=True))
    add("max", [("x", T((4, 8)))], lambda x: op.max(x, axis=[0]))
    add("min", [("x", T((4, 8)))], lambda x: op.min(x, axis=[1]))
    add("prod", [("x", T((4, 8)))], lambda x: op.prod(x, axis=[1]))
    add("variance", [("x", T((4, 8)))], lambda x: op.variance(x, axis=[1]))
    add("argmax", [("x", T((4, 8)))], lambda x: op.argmax(x, axis=1))
    # Indexing and gathering.
    add("take", [("x", T((10, 16))), ("i", T((4,), I64))], lambda x, i: op.take(x, i, axis=0))
    add("take_dyn", [("x", T((100, 16))), ("i", T((n,), "int32"))],
        lambda x, i: op.take(x, i, axis=0), ["n"])
    add("gather_elements", [("x", T((4, 5))), ("i", T((4, 3), I64))],
        lambda x, i: op.gather_elements(x, i, axis=1))
    add("gather_nd", [("x", T((4, 5, 6))), ("i", T((3, 2), I64))], lambda x, i: op.gather_nd(x, i))
    add("scatter_elements", [("x", T((4, 5))), ("i", T((2, 5), I64)), ("u", T((2, 5)))],
        lambda x, i, u: op.scatter_elements(x, i, u, axis=0))
    add("one_hot", [("i", T((4,), "int32"))],
        lambda i: op.one_hot(i, relax.prim_value(1.0), relax.prim_value(0.0), depth=6))
    # Layout.
    add("transpose", [("x", T((2, 3, 4)))], lambda x: op.permute_dims(x, [2, 0, 1]))
    add("transpose_dyn", [("x", T((n, 8)))], lambda x: op.permute_dims(x, [1, 0]), ["n"])
    add("reshape", [("x", T((2, 3, 4)))], lambda x: op.reshape(x, (6, 4)))
    add("reshape_dyn", [("x", T((n, 4, 8)))], lambda x: op.reshape(x, (n, 32)), ["n"])
    add("concat", [("x", T((2, 3))), ("y", T((4, 3)))], lambda x, y: op.concat([x, y], axis=0))
    add("concat_dyn", [("x", T((n, 3))), ("y", T((n, 5)))],
        lambda x, y: op.concat([x, y], axis=1), ["n"])
    add("split", [("x", T((6, 4)))],
        lambda x: relax.TupleGetItem(op.split(x, indices_or_sections=[2, 5], axis=0), 1))
    add("strided_slice", [("x", T((8, 10)))],
        lambda x: op.strided_slice(x, axes=[0, 1], begin=[1, 0], end=[7, 10], strides=[2, 3]))
    add("strided_slice_dyn", [("x", T((n, 10)))],
        lambda x: op.strided_slice(x, axes=[1], begin=[2], end=[8]), ["n"])
    add("broadcast_to", [("x", T((1, 8)))], lambda x: op.broadcast_to(x, (4, 8)))
    add("expand_dims", [("x", T((4, 8)))], lambda x: op.expand_dims(x, axis=1))
    add("squeeze", [("x", T((4, 1, 8)))], lambda x: op.squeeze(x, axis=[1]))
    add("flip", [("x", T((4, 8)))], lambda x: op.flip(x, axis=1))
    add("tile", [("x", T((2, 3)))], lambda x: op.tile(x, (2, 2)))
    add("repeat", [("x", T((2, 3)))], lambda x: op.repeat(x, 2, axis=1))
    add("resize2d", [("x", T((1, 2, 4, 4)))],
        lambda x: relax.op.image.resize2d(x, (8, 8), method="linear"))
    add("resize2d_nearest", [("x", T((1, 2, 4, 4)))],
        lambda x: relax.op.image.resize2d(x, (6, 6), method="nearest_neighbor",
                                          coordinate_transformation_mode="asymmetric",
                                          rounding_method="floor"))
    add("full", [("x", T((4, 8)))], lambda x: op.full_like(x, relax.const(2.5, F32)))
    add("tril", [("x", T((6, 6)))], lambda x: op.tril(x, 0))
    return cases


def make_tir():
    count = 0
    for name, params, call, dims in tir_cases():
        funcs = legalize_one(params, call)
        if not funcs:
            print(f"tir: LegalizeOps made no PrimFunc for {name}", file=sys.stderr)
            continue
        for func_name, func in funcs:
            rel = f"tir/{name}.tir" if len(funcs) == 1 else f"tir/{name}_{func_name}.tir"
            write(rel, func.script(), source="relax.transform.LegalizeOps", op=name,
                  tvm_name=func_name, dims=dims)
            count += 1
    print(f"tir: {count} PrimFuncs")



def te_cases():
    """PrimFuncs as te.create_prim_func writes them: int32 shapes, `n = T.int32()` in the body
    and the dim named by a string in the first buffer that uses it."""
    from tvm import te, topi

    def matmul(m, name):
        a = te.placeholder((m, 64), name="A")
        b = te.placeholder((64, 32), name="B")
        k = te.reduce_axis((0, 64), name="k")
        c = te.compute((m, 32), lambda i, j: te.sum(a[i, k] * b[k, j], axis=k), name="C")
        d = te.compute((m, 32), lambda i, j: te.max(c[i, j], tirx.const(0, F32)), name="D")
        return name, te.create_prim_func([a, b, d])

    n = te.var("n")
    yield matmul(n, "te_matmul_relu_dyn") + (["n"],)
    yield matmul(16, "te_matmul_relu") + ([],)
    x = te.placeholder((1, 3, 8, 8), name="X")
    w = te.placeholder((4, 3, 3, 3), name="W")
    y = topi.nn.conv2d_nchw(x, w, stride=1, padding=1, dilation=1)
    yield "te_conv2d_nchw", te.create_prim_func([x, w, y]), []


def make_tir():
    count = 0
    for name, params, call, dims in tir_cases():
        funcs = legalize_one(params, call)
        if not funcs:
            raise RuntimeError(f"LegalizeOps made no PrimFunc for {name}")
        for func_name, func in funcs:
            rel = f"tir/{name}.tir" if len(funcs) == 1 else f"tir/{name}_{func_name}.tir"
            write(rel, func.script(), source="relax.transform.LegalizeOps", op=name,
                  tvm_name=func_name, dims=dims)
            count += 1
    for name, func, dims in te_cases():
        write(f"tir/{name}.tir", func.script(), source="te.create_prim_func", op=name, dims=dims)
        count += 1
    print(f"tir: {count} PrimFuncs")


# ---------------------------------------------------------------------------------------------
# relax/: whole modules from TVM's front ends.


class OnnxGraph:
    """A small ONNX builder with seeded weights, as examples/models/make_models.py has."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.count = [], [], 0

    def name(self, hint):
        self.count += 1
        return f"{hint}_{self.count}"

    def weight(self, hint, shape):
        data = (self.rng.standard_normal(shape) * 0.5).astype(np.float32)
        return self.const(hint, data)

    def const(self, hint, array):
        name = self.name(hint)
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def op(self, op_type, inputs, **attrs):
        out = self.name(op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], **attrs))
        return out

    def model(self, inputs, output, out_shape, opset=17):
        graph = helper.make_graph(self.nodes, "g", inputs,
                                  [helper.make_tensor_value_info(output, TensorProto.FLOAT,
                                                                 out_shape)], self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        model.ir_version = 8
        onnx.checker.check_model(model)
        return model


def small_onnx_models():
    """Small models made here: (name, model). Weights are a few hundred floats at most."""
    # A two-layer MLP with a symbolic batch: Gemm, Relu, Add, Softmax.
    g = OnnxGraph(1)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 8])
    h = g.op("Gemm", ["x", g.weight("w1", (16, 8)), g.weight("b1", (16,))], transB=1)
    h = g.op("Relu", [h])
    h = g.op("MatMul", [h, g.weight("w2", (16, 4))])
    h = g.op("Add", [h, g.weight("b2", (4,))])
    out = g.op("Softmax", [h], axis=-1)
    yield "onnx_tiny_mlp", g.model([x], out, ["batch", 4])
    # A small convolution block: Conv, BatchNormalization, Relu, MaxPool, GlobalAveragePool,
    # Flatten.
    g = OnnxGraph(2)
    x = helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, 8, 8])
    h = g.op("Conv", ["image", g.weight("w", (4, 3, 3, 3)), g.weight("b", (4,))], pads=[1, 1, 1, 1])
    h = g.op("BatchNormalization", [h, g.weight("scale", (4,)), g.weight("bias", (4,)),
                                    g.weight("mean", (4,)),
                                    g.const("var", np.full((4,), 1.5, np.float32))])
    h = g.op("Relu", [h])
    h = g.op("MaxPool", [h], kernel_shape=[2, 2], strides=[2, 2])
    h = g.op("GlobalAveragePool", [h])
    out = g.op("Flatten", [h])
    yield "onnx_tiny_cnn", g.model([x], out, [1, 4])
    # Layer norm, attention-like matmuls, Transpose, Reshape, Gather, Concat, Slice.
    g = OnnxGraph(3)
    x = helper.make_tensor_value_info("tokens", TensorProto.INT64, [1, "seq"])
    e = g.op("Gather", [g.weight("embedding", (10, 8)), "tokens"], axis=0)
    e = g.op("LayerNormalization", [e, g.weight("gamma", (8,)), g.weight("beta", (8,))], axis=-1)
    q = g.op("MatMul", [e, g.weight("wq", (8, 8))])
    k = g.op("Transpose", [g.op("MatMul", [e, g.weight("wk", (8, 8))])], perm=[0, 2, 1])
    s = g.op("Softmax", [g.op("MatMul", [q, k])], axis=-1)
    a = g.op("MatMul", [s, e])
    c = g.op("Concat", [a, e], axis=-1)
    r = g.op("Reshape", [c, g.const("shape", np.array([1, -1, 4, 4], np.int64))])
    out = g.op("Slice", [r, g.const("starts", np.array([1], np.int64)),
                         g.const("ends", np.array([3], np.int64)),
                         g.const("axes", np.array([2], np.int64))])
    yield "onnx_tiny_attention", g.model([x], out, [1, "seq", 2, 4])


def nn_modules():
    """relax.frontend.nn modules and their export specs: (name, module, spec)."""
    from tvm.relax.frontend import nn

    class Mlp(nn.Module):
        def __init__(self):
            self.fc1 = nn.Linear(16, 32)
            self.fc2 = nn.Linear(32, 8)

        def forward(self, x):
            return self.fc2(nn.op.silu(self.fc1(x)))

    class Block(nn.Module):
        def __init__(self):
            self.norm = nn.RMSNorm(16, axes=-1, bias=False)
            self.up = nn.Linear(16, 32, bias=False)
            self.gate = nn.Linear(16, 32, bias=False)
            self.down = nn.Linear(32, 16, bias=False)

        def forward(self, x):
            h = self.norm(x)
            return x + self.down(nn.op.silu(self.gate(h)) * self.up(h))

    class Conv(nn.Module):
        def __init__(self):
            self.conv = nn.Conv2D(3, 4, 3, padding=1)

        def forward(self, x):
            return nn.op.softmax(self.conv(x), axis=1)

    yield "nn_mlp", Mlp(), {"forward": {"x": nn.spec.Tensor(["n", 16], F32)}}
    yield "nn_gated_block", Block(), {"forward": {"x": nn.spec.Tensor([2, "seq", 16], F32)}}
    yield "nn_conv", Conv(), {"forward": {"x": nn.spec.Tensor([1, 3, 8, 8], F32)}}


def make_relax():
    from tvm.relax.frontend.onnx import from_onnx

    count = 0
    onnx_models = [(name, onnx.load(os.path.join(MODELS, name, "model.onnx")), True)
                   for name in sorted(os.listdir(MODELS))
                   if os.path.isfile(os.path.join(MODELS, name, "model.onnx"))]
    onnx_models = [("onnx_" + name, model, False) for name, model, _ in onnx_models]
    onnx_models += [(name, model, True) for name, model in small_onnx_models()]
    for name, model, small in onnx_models:
        # Weights as parameters: the module carries no constants. TVM's importer refuses this
        # where an initializer is a shape (Reshape's), so not every model has this form.
        try:
            mod = from_onnx(model, keep_params_in_input=True)
            write(f"relax/{name}_params.relax", mod.script(), source="relax.frontend.onnx",
                  keep_params_in_input=True)
            count += 1
        except Exception as e:  # noqa: BLE001 (TVM raises several kinds)
            print(f"relax: {name} with keep_params_in_input: {str(e).splitlines()[-1]}",
                  file=sys.stderr)
        # Weights as constants: without the metadata section and, for the small ones, with it.
        mod = from_onnx(model)
        write(f"relax/{name}.relax", mod.script(), source="relax.frontend.onnx")
        if small:
            write(f"relax/{name}_meta.relax", mod.script(show_meta=True),
                  source="relax.frontend.onnx", show_meta=True)
            legal = relax.transform.LegalizeOps()(mod)
            write(f"relax/{name}_legalized.relax", legal.script(show_meta=True),
                  source="relax.frontend.onnx + LegalizeOps", show_meta=True)
        count += 1 + 2 * small
    for name, module, spec in nn_modules():
        mod, _ = module.export_tvm(spec=spec)
        write(f"relax/{name}.relax", mod.script(), source="relax.frontend.nn export_tvm",
              entry="forward")
        legal = relax.transform.LegalizeOps()(mod)
        write(f"relax/{name}_legalized.relax", legal.script(),
              source="relax.frontend.nn export_tvm + LegalizeOps", entry="forward")
        count += 2
    print(f"relax: {count} modules")



# ---------------------------------------------------------------------------------------------
# database/: a small MetaSchedule tuning run.


def tuning_workloads():
    """(name, PrimFunc): a matmul and a fused matmul + bias + ReLU, as te writes them."""
    from tvm import te

    a = te.placeholder((128, 128), name="A")
    b = te.placeholder((128, 128), name="B")
    k = te.reduce_axis((0, 128), name="k")
    c = te.compute((128, 128), lambda i, j: te.sum(a[i, k] * b[k, j], axis=k), name="C")
    yield "matmul_128", te.create_prim_func([a, b, c])

    x = te.placeholder((32, 64), name="X")
    w = te.placeholder((64, 64), name="W")
    bias = te.placeholder((64,), name="bias")
    k = te.reduce_axis((0, 64), name="k")
    d = te.compute((32, 64), lambda i, j: te.sum(x[i, k] * w[j, k], axis=k), name="dense")
    e = te.compute((32, 64), lambda i, j: d[i, j] + bias[j], name="bias_add")
    r = te.compute((32, 64), lambda i, j: te.max(e[i, j], tirx.const(0, F32)), name="relu")
    yield "dense_bias_relu", te.create_prim_func([x, w, bias, r])


def tune_database(trials):
    """database/database_*.json: a few trials of ms.tune_tir per workload, on this CPU."""
    from tvm.s_tir import meta_schedule as ms
    from tvm.target import Target

    target = Target({"kind": "llvm", "num-cores": 2})
    out = os.path.join(HERE, "database")
    with tempfile.TemporaryDirectory() as work_dir:
        for name, func in tuning_workloads():
            # Generous time limits: the build machine is shared and slow to start workers.
            ms.tune_tir(mod=func, target=target, work_dir=work_dir, max_trials_global=trials,
                        num_trials_per_iter=min(trials, 8), seed=7, num_tuning_cores=1,
                        cost_model="random",
                        builder=ms.builder.LocalBuilder(max_workers=1, timeout_sec=600),
                        runner=ms.runner.LocalRunner(timeout_sec=120))
            print(f"database: tuned {name}")
        os.makedirs(out, exist_ok=True)
        for base in ("database_workload.json", "database_tuning_record.json"):
            shutil.copy(os.path.join(work_dir, base), os.path.join(out, base))


def describe_database(folder):
    """Prints a JSONDatabase's workloads and records next to it: workload_<w>.tir (w its line in
    database_workload.json, which is a record's first field) and, per line i of
    database_tuning_record.json, record_<i>.py (the trace as TVM prints it) and
    record_<i>_scheduled.tir (the workload with the trace applied by TVM), so that a test can
    replay a trace without reading TVM's JSON graph and compare with TVM's result."""
    import tvm_ffi
    from tvm.s_tir import meta_schedule as ms
    from tvm.s_tir.schedule import Trace

    path = os.path.join(HERE, folder)
    workload_file = os.path.join(path, "database_workload.json")
    record_file = os.path.join(path, "database_tuning_record.json")
    for name in os.listdir(path):
        if name.endswith(".tir") or name.endswith(".py"):
            os.remove(os.path.join(path, name))
    database = ms.database.JSONDatabase(path_workload=workload_file,
                                        path_tuning_record=record_file)
    by_hash = {str(tvm_ffi.structural_hash(rec.workload.mod)): rec.workload.mod
               for rec in database.get_all_tuning_records()}
    workloads = [by_hash.get(json.loads(line)[0]) for line in open(workload_file)]
    for w, mod in enumerate(workloads):
        if mod is not None:
            write(f"{folder}/workload_{w}.tir", mod["main"].script(),
                  source="meta_schedule JSONDatabase workload")
    lines = open(record_file).read().splitlines()
    for i, line in enumerate(lines):
        record = json.loads(line)
        sch = tvm.s_tir.Schedule(workloads[record[0]])
        Trace.apply_json_to_schedule(record[1][0], sch)
        info = dict(workload=f"{folder}/workload_{record[0]}.tir", run_secs=record[1][1])
        write(f"{folder}/record_{i}.py", str(sch.trace), source="meta_schedule trace", **info)
        write(f"{folder}/record_{i}_scheduled.tir", sch.mod["main"].script(),
              source="meta_schedule trace applied by TVM", **info)
    print(f"{folder}: {len(workloads)} workloads, {len(lines)} records")


def handwritten_schedules():
    """(name, workload, schedule function): one TVM schedule per group of instruction kinds, with
    fixed decisions, so that each kind's JSON shape is in a record and a kind that a reader
    does not take fails one record only."""
    from tvm import te

    def matmul_relu():
        a = te.placeholder((16, 16), name="A")
        b = te.placeholder((16, 16), name="B")
        k = te.reduce_axis((0, 16), name="k")
        c = te.compute((16, 16), lambda i, j: te.sum(a[i, k] * b[k, j], axis=k), name="C")
        d = te.compute((16, 16), lambda i, j: te.max(c[i, j], tirx.const(0, F32)), name="D")
        return te.create_prim_func([a, b, d])

    def chain():
        a = te.placeholder((16, 16), name="A")
        b = te.compute((16, 16), lambda i, j: a[i, j] * 2.0, name="B")
        c = te.compute((16, 16), lambda i, j: b[i, j] + 1.0, name="C")
        d = te.compute((16, 16), lambda i, j: c[i, j] * c[i, j], name="D")
        return te.create_prim_func([a, d])

    def tiling(sch):
        c = sch.get_sblock("C")
        i, j, k = sch.get_loops(c)
        ti = sch.sample_perfect_tile(i, n=3, max_innermost_factor=4, decision=[2, 2, 4])
        tj = sch.sample_perfect_tile(j, n=2, max_innermost_factor=8, decision=[2, 8])
        i0, i1, i2 = sch.split(i, ti)
        j0, j1 = sch.split(j, tj)
        sch.reorder(i0, j0, i1, k, i2, j1)
        fused = sch.fuse(i0, j0)
        sch.parallel(fused)
        sch.vectorize(j1)
        sch.unroll(i2)
        sch.annotate(c, "meta_schedule.tiling_structure", "SSRSRS")
        u = sch.sample_categorical([0, 16, 64], [0.25, 0.25, 0.5], decision=2)
        sch.annotate(c, "meta_schedule.unroll_explicit", u)
        sch.annotate(fused, "pragma_auto_unroll_max_step", 16)
        sch.annotate(fused, "pragma_unroll_explicit", 1)
        sch.annotate(c, "kiln.test.float", 0.5)
        sch.decompose_reduction(c, k)

    def cache(sch):
        c = sch.get_sblock("C")
        i, j, k = sch.get_loops(c)
        i0, i1 = sch.split(i, [None, 4])
        a_local = sch.cache_read(c, 0, "global")
        sch.compute_at(a_local, i0)
        c_local = sch.cache_write(c, 0, "global")
        sch.reverse_compute_at(c_local, i0, preserve_unit_loops=True)
        sch.storage_align(a_local, 0, axis=0, factor=8, offset=1)
        sch.set_scope(c_local, 0, "global")

    def inline(sch):
        sch.compute_inline(sch.get_sblock("B"))
        sch.reverse_compute_inline(sch.get_sblock("D"))

    def locations(sch):
        d = sch.get_sblock("D")
        (c,) = sch.get_producers(d)
        (d_again,) = sch.get_consumers(c)
        loc = sch.sample_compute_location(c, decision=0)
        sch.compute_at(c, loc)
        sch.add_unit_loop(d_again)

    def rfactor(sch):
        c = sch.get_sblock("C")
        i, j, k = sch.get_loops(c)
        k0, k1 = sch.split(k, [4, None])
        rf = sch.rfactor(k1, 0)
        sch.parallel(sch.get_loops(rf)[0])

    def postproc(sch):
        c = sch.get_sblock("C")
        root = sch.get_sblock("root")
        sch.annotate(root, "meta_schedule.parallel", 32)
        sch.annotate(root, "meta_schedule.vectorize", 16)
        sch.enter_postproc()
        sch.unannotate(root, "meta_schedule.parallel")
        sch.unannotate(root, "meta_schedule.vectorize")
        blocks = sch.get_child_blocks(root)
        loops = sch.get_loops(blocks[0])
        sch.parallel(sch.fuse(loops[0], loops[1]))
        sch.vectorize(sch.get_loops(blocks[1])[1])
        sch.decompose_reduction(c, sch.get_loops(c)[1])

    def split_options(sch):
        c = sch.get_sblock("C")
        i, j, k = sch.get_loops(c)
        sch.split(i, [None, 3], preserve_unit_iters=False)
        sch.split(j, [1, 16], preserve_unit_iters=True)
        sch.fuse(*sch.get_loops(sch.get_sblock("D")), preserve_unit_iters=False)

    def layout(sch):
        c = sch.get_sblock("C")
        sch.transform_layout(c, ("write", 0), lambda i, j: (j // 4, i, j % 4))

    def bind(sch):
        d = sch.get_sblock("D")
        i, j = sch.get_loops(d)
        sch.bind(i, "blockIdx.x")
        sch.bind(j, "threadIdx.x")

    yield "tiling", matmul_relu, tiling
    yield "cache", matmul_relu, cache
    yield "inline", chain, inline
    yield "locations", chain, locations
    yield "rfactor", matmul_relu, rfactor
    yield "postproc", matmul_relu, postproc
    yield "split_options", matmul_relu, split_options
    yield "transform_layout", matmul_relu, layout
    yield "bind", matmul_relu, bind


def make_handwritten_database():
    """database/handwritten/: a JSONDatabase of the schedules above, written by TVM."""
    from tvm.s_tir import meta_schedule as ms
    from tvm.target import Target

    target = Target({"kind": "llvm", "num-cores": 2})
    out = os.path.join(HERE, "database", "handwritten")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    database = ms.database.JSONDatabase(
        path_workload=os.path.join(out, "database_workload.json"),
        path_tuning_record=os.path.join(out, "database_tuning_record.json"))
    workloads = {}
    for i, (name, make_workload, schedule) in enumerate(handwritten_schedules()):
        func = make_workload()
        mod = tvm.IRModule({"main": func})
        if make_workload.__name__ not in workloads:
            workloads[make_workload.__name__] = database.commit_workload(mod)
        sch = tvm.s_tir.Schedule(mod)
        schedule(sch)
        # Records are appended in order: record i of the file is schedule i.
        database.commit_tuning_record(ms.database.TuningRecord(
            sch.trace, workloads[make_workload.__name__], [1.0e-6 * (i + 1)], target,
            ms.arg_info.ArgInfo.from_prim_func(func)))
    describe_database("database/handwritten")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tune", action="store_true", help="also rewrite database/")
    parser.add_argument("--trials", type=int, default=8, help="trials per workload")
    args = parser.parse_args()
    if tvm.__version__ != "0.27.0.post1":
        print(f"warning: the corpus was made with apache-tvm 0.27.0.post1, this is "
              f"{tvm.__version__}", file=sys.stderr)
    for sub in ("tir", "relax"):
        shutil.rmtree(os.path.join(HERE, sub), ignore_errors=True)
    make_tir()
    make_relax()
    make_handwritten_database()
    if args.tune:
        tune_database(args.trials)
    if os.path.exists(os.path.join(HERE, "database", "database_tuning_record.json")):
        describe_database("database")
    manifest_path = os.path.join(HERE, "manifest.json")
    with open(manifest_path, "w") as f:
        json.dump(sorted(MANIFEST, key=lambda e: e["file"]), f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
