"""Writes the ONNX files the front end's tests read (and the fuzzer starts from).

models/: small valid models with symbolic dims and the shape subgraphs exporters emit, and
models at opsets 18 to 28 with the op versions that changed after 17.
malformed/: files that must be rejected with a clear error, never a crash.

Run with the project's virtual environment from the repository root:
    .venv/bin/python tests/ir/frontend/testdata/make_testdata.py
The output is deterministic; rerunning it rewrites the same files.
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def save(model, folder, name):
    path = os.path.join(HERE, folder, name)
    with open(path, "wb") as f:
        f.write(model.SerializeToString(deterministic=True))


def model_of(nodes, inputs, outputs, initializers=(), opset=13, name="g"):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="kiln-testdata")
    model.ir_version = 8
    return model


def const_i64(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def mlp_dynamic():
    """x: (batch, seq, 16) -> MatMul(16x32) + bias -> Relu -> reshape (batch, seq*32) via the
    Shape -> Gather -> Unsqueeze -> Concat -> Reshape pattern torch exports."""
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.standard_normal((16, 32)).astype(np.float32), "w")
    b = numpy_helper.from_array(rng.standard_normal((32,)).astype(np.float32), "b")
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["mm"], name="fc"),
        helper.make_node("Add", ["mm", "b"], ["add"], name="bias"),
        helper.make_node("Relu", ["add"], ["act"], name="relu"),
        helper.make_node("Shape", ["x"], ["shape"], name="shape"),
        helper.make_node("Gather", ["shape", "zero"], ["batch"], name="gather_batch", axis=0),
        helper.make_node("Unsqueeze", ["batch", "axes0"], ["batch_1d"], name="unsq"),
        helper.make_node("Concat", ["batch_1d", "minus_one"], ["target"], name="concat", axis=0),
        helper.make_node("Reshape", ["act", "target"], ["y"], name="reshape"),
    ]
    inits = [w, b, numpy_helper.from_array(np.array(0, dtype=np.int64), "zero"),
             const_i64("axes0", [0]), const_i64("minus_one", [-1])]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", 16])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "flat"])
    return model_of(nodes, [x], [y], inits)


def attention_shapes():
    """Two inputs sharing dim_param 'seq'; the head split reads seq from Shape and divides
    the hidden size with Div; ConstantOfShape(Shape(x)) makes a mask of x's shape."""
    nodes = [
        helper.make_node("Shape", ["q"], ["qs"]),
        helper.make_node("Slice", ["qs", "s0", "s2"], ["bs"]),  # (batch, seq)
        helper.make_node("Gather", ["qs", "two"], ["hidden"], axis=0),
        helper.make_node("Div", ["hidden", "heads"], ["head_dim"]),
        helper.make_node("Unsqueeze", ["head_dim", "axes0"], ["head_dim_1d"]),
        helper.make_node("Concat", ["bs", "heads_1d", "head_dim_1d"], ["split_shape"], axis=0),
        helper.make_node("Reshape", ["q", "split_shape"], ["qh"]),
        helper.make_node("Transpose", ["qh"], ["qt"], perm=[0, 2, 1, 3]),
        helper.make_node("Shape", ["k"], ["ks"]),
        helper.make_node("ConstantOfShape", ["ks"], ["mask"],
                         value=helper.make_tensor("v", TensorProto.FLOAT, [1], [1.0])),
        helper.make_node("Mul", ["k", "mask"], ["km"]),
    ]
    inits = [const_i64("s0", [0]), const_i64("s2", [2]),
             numpy_helper.from_array(np.array(2, dtype=np.int64), "two"),
             numpy_helper.from_array(np.array(4, dtype=np.int64), "heads"),
             const_i64("heads_1d", [4]), const_i64("axes0", [0])]
    q = helper.make_tensor_value_info("q", TensorProto.FLOAT, ["batch", "seq", 64])
    k = helper.make_tensor_value_info("k", TensorProto.FLOAT, ["batch", "seq", 64])
    outs = [helper.make_tensor_value_info("qt", TensorProto.FLOAT, None),
            helper.make_tensor_value_info("km", TensorProto.FLOAT, None)]
    return model_of(nodes, [q, k], outs, inits)


def conv_block():
    """A static-shape conv net piece: Conv + BatchNormalization + Relu + MaxPool + Gemm."""
    rng = np.random.default_rng(1)
    arr = lambda shape, name: numpy_helper.from_array(
        rng.standard_normal(shape).astype(np.float32), name)
    nodes = [
        helper.make_node("Conv", ["x", "cw", "cb"], ["c"], pads=[1, 1, 1, 1], strides=[1, 1],
                         kernel_shape=[3, 3]),
        helper.make_node("BatchNormalization", ["c", "g", "beta", "mean", "var"], ["bn"],
                         epsilon=1e-5),
        helper.make_node("Relu", ["bn"], ["r"]),
        helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["p"], ["f"], axis=1),
        helper.make_node("Gemm", ["f", "fw", "fb"], ["y"], transB=1),
    ]
    inits = [arr((8, 3, 3, 3), "cw"), arr((8,), "cb"), arr((8,), "g"), arr((8,), "beta"),
             arr((8,), "mean"), numpy_helper.from_array(
                 np.abs(rng.standard_normal((8,))).astype(np.float32) + 0.5, "var"),
             arr((10, 8 * 4 * 4), "fw"), arr((10,), "fb")]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3, 8, 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 10])
    return model_of(nodes, [x], [y], inits)


def unsupported_ops():
    """Three nodes Kiln cannot convert, for the all-at-once report."""
    nodes = [
        helper.make_node("Relu", ["x"], ["a"], name="ok_relu"),
        helper.make_node("TopK", ["a", "k"], ["vals", "idx"], name="topk_node", axis=-1),
        helper.make_node("NonZero", ["a"], ["nz"], name="nonzero_node"),
        helper.make_node("Einsum", ["a", "a"], ["r"], name="einsum_node", equation="ij,jk->ik"),
        helper.make_node("Add", ["vals", "vals"], ["y"], name="after_topk"),
    ]
    inits = [const_i64("k", [2])]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 4])
    outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in ("y", "r")]
    outs.append(helper.make_tensor_value_info("nz", TensorProto.INT64, None))
    return model_of(nodes, [x], outs, inits)


def relu_model(opset=13):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    return model_of([helper.make_node("Relu", ["x"], ["y"])], [x], [y], opset=opset)


def malformed():
    good = relu_model().SerializeToString()
    out = {}
    out["truncated.onnx"] = good[: len(good) // 2]
    out["random_bytes.onnx"] = bytes(np.random.default_rng(7).integers(0, 256, 300,
                                                                        dtype=np.uint8))
    out["text_file.onnx"] = b"this is not an ONNX model\n"

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    m = model_of([helper.make_node("Add", ["x", "nowhere"], ["y"], name="add_undefined")],
                 [x], [y])
    out["undefined_input.onnx"] = m.SerializeToString()

    m = model_of([helper.make_node("Add", ["x"], ["y"], name="add_one_input")], [x], [y])
    out["missing_input.onnx"] = m.SerializeToString()

    bad = TensorProto()
    bad.name = "w"
    bad.data_type = TensorProto.FLOAT
    bad.dims.extend([2, 3])
    bad.raw_data = b"\x00" * 10  # 6 floats need 24 bytes
    m = model_of([helper.make_node("Add", ["x", "w"], ["y"])], [x], [y], [bad])
    out["bad_initializer_size.onnx"] = m.SerializeToString()

    unknown = TensorProto()
    unknown.name = "w"
    unknown.data_type = 99
    unknown.dims.extend([2, 3])
    unknown.raw_data = b"\x00" * 24
    m = model_of([helper.make_node("Add", ["x", "w"], ["y"])], [x], [y], [unknown])
    out["unknown_dtype.onnx"] = m.SerializeToString()

    out["opset_out_of_range.onnx"] = relu_model(opset=99).SerializeToString()

    m = model_of([helper.make_node("Relu", ["b"], ["a"], name="first"),
                  helper.make_node("Relu", ["a"], ["b"], name="second"),
                  helper.make_node("Add", ["x", "a"], ["y"], name="third")], [x], [y])
    out["cycle.onnx"] = m.SerializeToString()

    m = model_of([helper.make_node("Relu", ["x"], ["y"], name="r1"),
                  helper.make_node("Relu", ["x"], ["y"], name="r2")], [x], [y])
    out["duplicate_output.onnx"] = m.SerializeToString()

    ext = TensorProto()
    ext.name = "w"
    ext.data_type = TensorProto.FLOAT
    ext.dims.extend([2, 3])
    ext.data_location = TensorProto.EXTERNAL
    entry = ext.external_data.add()
    entry.key, entry.value = "location", "weights.bin"
    m = model_of([helper.make_node("Add", ["x", "w"], ["y"])], [x], [y], [ext])
    out["external_data.onnx"] = m.SerializeToString()
    for name, data in out.items():
        with open(os.path.join(HERE, "malformed", name), "wb") as f:
            f.write(data)


def newer_opsets():
    """Models at opsets 18 to 28 with the op versions that changed after 17 (the fuzzer starts
    from them too): {file name: model}."""
    rng = np.random.default_rng(3)
    f32 = lambda *shape: rng.standard_normal(shape).astype(np.float32)  # noqa: E731
    vi = helper.make_tensor_value_info
    models = {}

    # 18: axes as inputs, Split num_outputs, Pad axes, GroupNormalization per group,
    # CenterCropPad, Resize with axes and keep_aspect_ratio_policy, Mish.
    nodes = [
        helper.make_node("ReduceMean", ["x", "axes_hw"], ["mean"], keepdims=1),
        helper.make_node("Sub", ["x", "mean"], ["centered"]),
        helper.make_node("GroupNormalization", ["centered", "gn_scale", "gn_bias"], ["gn"],
                         num_groups=2),
        helper.make_node("Split", ["gn"], ["s0", "s1", "s2"], axis=1, num_outputs=3),
        helper.make_node("Pad", ["s0", "pads", "", "axes_w"], ["padded"], mode="reflect"),
        helper.make_node("CenterCropPad", ["padded", "crop"], ["cropped"], axes=[2, 3]),
        helper.make_node("Resize", ["cropped", "", "", "sizes"], ["resized"], axes=[2, 3],
                         keep_aspect_ratio_policy="not_larger", mode="linear"),
        helper.make_node("Mish", ["resized"], ["y"]),
    ]
    inits = [const_i64("axes_hw", [2, 3]), const_i64("pads", [1, 1]), const_i64("axes_w", [3]),
             const_i64("crop", [6, 6]), const_i64("sizes", [12, 9]),
             numpy_helper.from_array(f32(2), "gn_scale"),
             numpy_helper.from_array(f32(2), "gn_bias")]
    models["opset18_ops.onnx"] = model_of(
        nodes, [vi("x", TensorProto.FLOAT, ["n", 6, 8, 8])], [vi("y", TensorProto.FLOAT, None)],
        inits, opset=18)

    # 21: GroupNormalization per channel, blocked DequantizeLinear, Flatten-21, Gelu (20).
    nodes = [
        helper.make_node("DequantizeLinear", ["wq", "w_scale"], ["w"], axis=1, block_size=4),
        helper.make_node("MatMul", ["x", "w"], ["mm"]),
        helper.make_node("Gelu", ["mm"], ["act"], approximate="tanh"),
        helper.make_node("Unsqueeze", ["act", "axes_last"], ["act4"]),
        helper.make_node("GroupNormalization", ["act4", "c_scale", "c_bias"], ["gn"],
                         num_groups=2, stash_type=1),
        helper.make_node("Flatten", ["gn"], ["y"], axis=1),
    ]
    inits = [numpy_helper.from_array(rng.integers(-8, 8, (8, 8)).astype(np.int8), "wq"),
             numpy_helper.from_array(np.abs(f32(8, 2)) + 0.1, "w_scale"),
             const_i64("axes_last", [-1]),
             numpy_helper.from_array(f32(4), "c_scale"), numpy_helper.from_array(f32(4), "c_bias")]
    models["opset21_ops.onnx"] = model_of(
        nodes, [vi("x", TensorProto.FLOAT, ["n", 4, 8])], [vi("y", TensorProto.FLOAT, None)],
        inits, opset=21)

    # 23: Attention over 3-D inputs with grouped heads and a causal mask, RMSNormalization,
    # RotaryEmbedding.
    nodes = [
        helper.make_node("RMSNormalization", ["x", "rms_scale"], ["normed"], axis=-1),
        helper.make_node("RotaryEmbedding", ["normed", "cos", "sin", "pos"], ["q"], num_heads=4),
        helper.make_node("Attention", ["q", "k", "v"], ["y", "present_k", "present_v"],
                         q_num_heads=4, kv_num_heads=2, is_causal=1),
    ]
    inits = [numpy_helper.from_array(f32(16), "rms_scale"),
             numpy_helper.from_array(f32(8, 2), "cos"), numpy_helper.from_array(f32(8, 2), "sin")]
    models["opset23_ops.onnx"] = model_of(
        nodes,
        [vi("x", TensorProto.FLOAT, [1, 5, 16]), vi("pos", TensorProto.INT64, [1, 5]),
         vi("k", TensorProto.FLOAT, [1, 5, 8]), vi("v", TensorProto.FLOAT, [1, 5, 8])],
        [vi("y", TensorProto.FLOAT, None)], inits, opset=23)

    # 28: BitShift of signed integers, Mod fmod=0 on floats, CumProd (26), Swish (24).
    nodes = [
        helper.make_node("BitShift", ["a", "b"], ["shifted"], direction="RIGHT"),
        helper.make_node("Mod", ["x", "d"], ["m"], fmod=0),
        helper.make_node("CumProd", ["m", "axis0"], ["cp"], reverse=1),
        helper.make_node("Swish", ["cp"], ["y"], alpha=0.5),
    ]
    inits = [numpy_helper.from_array(np.array(0, dtype=np.int64), "axis0"),
             numpy_helper.from_array(np.array([1.5, 2.5, -3.0], dtype=np.float32), "d")]
    models["opset28_ops.onnx"] = model_of(
        nodes,
        [vi("a", TensorProto.INT32, [3]), vi("b", TensorProto.INT32, [3]),
         vi("x", TensorProto.FLOAT, [4, 3])],
        [vi("shifted", TensorProto.INT32, None), vi("y", TensorProto.FLOAT, None)], inits,
        opset=28)
    for model in models.values():
        model.ir_version = 10
    return models


if __name__ == "__main__":
    save(mlp_dynamic(), "models", "mlp_dynamic.onnx")
    save(attention_shapes(), "models", "attention_shapes.onnx")
    save(conv_block(), "models", "conv_block.onnx")
    save(unsupported_ops(), "models", "unsupported_ops.onnx")
    for name, model in newer_opsets().items():
        save(model, "models", name)
    malformed()
