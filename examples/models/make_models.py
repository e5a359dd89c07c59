"""Makes Kiln's bundled example models and their test data.

Each model goes to examples/models/<name>/model.onnx with test_data_set_<i>/ folders in the
layout of ONNX's backend tests (input_<j>.pb, output_<j>.pb as TensorProto files), so that
`tune onnx-test examples/models/<name>` checks Kiln's reference executor against them. The
inputs are random (seeded) and the outputs are what ONNX Runtime computes for them.

Run with the project's virtual environment (deploy/install-deps.sh makes it):
    .venv/bin/python examples/models/make_models.py
The files are committed; running the script again rewrites them identically. The BERT-base
layer (28 MB of weights) is not committed: the build makes it from the same fixed seeds with
    .venv/bin/python examples/models/make_models.py --out BUILD_DIR/models
into BUILD_DIR/models/bert_layer, in the same layout.
"""

import argparse
import hashlib
import os
import shutil
import sys

import numpy as np
import onnx
import onnxruntime
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
OPSET = 17
IR_VERSION = 8  # readable by the ONNX library versions Kiln builds against


class Graph:
    """A small builder: named nodes, initializers from numpy, unique value names."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes = []
        self.initializers = []
        self.count = 0

    def name(self, hint):
        self.count += 1
        return f"{hint}_{self.count}"

    def weight(self, hint, shape, scale=None):
        fan_in = shape[-1] if len(shape) > 1 else shape[0]
        scale = scale if scale is not None else 1.0 / np.sqrt(fan_in)
        data = (self.rng.standard_normal(shape) * scale).astype(np.float32)
        return self.const(hint, data)

    def const(self, hint, array):
        name = self.name(hint)
        self.initializers.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def op(self, op_type, inputs, hint=None, outputs=1, **attrs):
        names = [self.name(hint or op_type.lower()) for _ in range(outputs)]
        self.nodes.append(
            helper.make_node(op_type, inputs, names, name=self.name(op_type), **attrs)
        )
        return names[0] if outputs == 1 else names

    def model(self, name, inputs, outputs):
        graph = helper.make_graph(self.nodes, name, inputs, outputs, self.initializers)
        model = helper.make_model(
            graph,
            opset_imports=[helper.make_opsetid("", OPSET)],
            producer_name="kiln-examples",
        )
        model.ir_version = IR_VERSION
        onnx.checker.check_model(model, full_check=True)
        return model


def mlp():
    """A 3-layer perceptron on a batch of any size: (batch, 64) -> 128 -> 128 -> 10."""
    g = Graph(seed=1)
    x = "x"
    h = x
    for i, (n_in, n_out) in enumerate([(64, 128), (128, 128), (128, 10)]):
        w = g.weight(f"fc{i}_weight", [n_out, n_in])
        b = g.weight(f"fc{i}_bias", [n_out], scale=0.1)
        h = g.op("Gemm", [h, w, b], f"fc{i}", transB=1)
        if i < 2:
            h = g.op("Relu", [h], f"relu{i}")
    g.nodes[-1].output[0] = "logits"
    model = g.model(
        "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 64])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 10])],
    )
    return model, [{"x": (4, 64)}, {"x": (1, 64)}]


def layer_norm(g, x, dim, hint, epsilon=1e-5):
    scale = g.const(f"{hint}_gamma", (1 + 0.1 * g.rng.standard_normal(dim)).astype(np.float32))
    bias = g.const(f"{hint}_beta", (0.1 * g.rng.standard_normal(dim)).astype(np.float32))
    return g.op("LayerNormalization", [x, scale, bias], hint, axis=-1, epsilon=epsilon)


def gelu(g, x):
    """GELU in the erf form, as exporters write it before opset 20."""
    scaled = g.op("Div", [x, g.const("sqrt2", np.array(np.sqrt(2.0), dtype=np.float32))])
    erf = g.op("Erf", [scaled])
    one_plus = g.op("Add", [erf, g.const("one", np.array(1.0, dtype=np.float32))])
    return g.op("Mul", [g.op("Mul", [x, one_plus]), g.const("half", np.array(0.5, np.float32))])


def encoder_layer(g, x, d_model, heads, d_ff, epsilon):
    """A post-norm transformer encoder layer on x of shape (1, seq_len, d_model), as exporters
    write BERT's: multi-head self-attention, residual and layer norm, a GELU feed-forward
    network, residual and layer norm. The head split is written the way exporters write it:
    Shape -> Gather -> Unsqueeze -> Concat -> Reshape. Returns the output's name."""
    d_head = d_model // heads

    def linear(h, n_in, n_out, hint):
        w = g.weight(f"{hint}_weight", [n_in, n_out])
        b = g.weight(f"{hint}_bias", [n_out], scale=0.1)
        return g.op("Add", [g.op("MatMul", [h, w], hint), b], f"{hint}_bias_add")

    shape = g.op("Shape", [x], "shape")
    seq = g.op("Gather", [shape, g.const("idx1", np.array(1, dtype=np.int64))], "seq", axis=0)
    seq_1d = g.op("Unsqueeze", [seq, g.const("axes0", np.array([0], dtype=np.int64))], "seq1d")
    split_shape = g.op(
        "Concat",
        [
            g.const("batch_dim", np.array([1], dtype=np.int64)),
            seq_1d,
            g.const("heads_dims", np.array([heads, d_head], dtype=np.int64)),
        ],
        "split_shape",
        axis=0,
    )
    merge_shape = g.op(
        "Concat",
        [g.const("batch_dim2", np.array([1], np.int64)), seq_1d,
         g.const("model_dim", np.array([d_model], np.int64))],
        "merge_shape",
        axis=0,
    )

    def heads_of(h, hint, perm):
        return g.op("Transpose", [g.op("Reshape", [h, split_shape], hint)], f"{hint}_t", perm=perm)

    q = heads_of(linear(x, d_model, d_model, "q"), "q_heads", [0, 2, 1, 3])
    k = heads_of(linear(x, d_model, d_model, "k"), "k_heads", [0, 2, 3, 1])
    v = heads_of(linear(x, d_model, d_model, "v"), "v_heads", [0, 2, 1, 3])
    scores = g.op("MatMul", [q, k], "scores")
    scaled = g.op("Div", [scores, g.const("scale", np.array(np.sqrt(d_head), np.float32))])
    probs = g.op("Softmax", [scaled], "probs", axis=-1)
    context = g.op("MatMul", [probs, v], "context")
    merged = g.op(
        "Reshape", [g.op("Transpose", [context], "context_t", perm=[0, 2, 1, 3]), merge_shape]
    )
    attn = linear(merged, d_model, d_model, "out")
    h1 = layer_norm(g, g.op("Add", [x, attn], "residual1"), d_model, "norm1", epsilon)
    ffn = linear(gelu(g, linear(h1, d_model, d_ff, "ffn_up")), d_ff, d_model, "ffn_down")
    return layer_norm(g, g.op("Add", [h1, ffn], "residual2"), d_model, "norm2", epsilon)


def encoder_model(name, seed, d_model, heads, d_ff, epsilon):
    g = Graph(seed=seed)
    encoder_layer(g, "x", d_model, heads, d_ff, epsilon)
    g.nodes[-1].output[0] = "y"
    return g.model(
        name,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, "seq_len", d_model])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, "seq_len", d_model])],
    )


def transformer_block():
    """A small post-norm transformer encoder block with a symbolic sequence length: 4 heads
    of 16 (d_model 64), a feed-forward network 64 -> 256 -> 64."""
    model = encoder_model("transformer_block", 2, d_model=64, heads=4, d_ff=256, epsilon=1e-5)
    return model, [{"x": (1, 8, 64)}, {"x": (1, 13, 64)}]


def bert_layer():
    """One encoder layer of BERT-base (hidden 768, 12 heads of 64, FFN 3072, GELU, LayerNorm
    with BERT's epsilon 1e-12), batch 1 and a symbolic sequence length, with random weights.
    Its weights are 28 MB of float32: too much to commit, so it is made at build time (the
    `--out` folder) rather than under examples/models. The test data holds a short sequence
    (3 tokens: the reference executor checks it in seconds) and the benchmarked length, 128."""
    model = encoder_model("bert_layer", 4, d_model=768, heads=12, d_ff=3072, epsilon=1e-12)
    return model, [{"x": (1, 3, 768)}, {"x": (1, 128, 768)}]


def cnn():
    """A small CNN for 3x32x32 images: two conv-batchnorm-relu-maxpool stages, global
    average pooling, flatten and a linear classifier to 10 classes."""
    g = Graph(seed=3)
    h = "image"
    channels = 3
    for i, c_out in enumerate([16, 32]):
        w = g.weight(f"conv{i}_weight", [c_out, channels, 3, 3], scale=1.0 / np.sqrt(9 * channels))
        b = g.weight(f"conv{i}_bias", [c_out], scale=0.1)
        h = g.op("Conv", [h, w, b], f"conv{i}", kernel_shape=[3, 3], pads=[1, 1, 1, 1])
        bn = [
            g.const(f"bn{i}_scale", (1 + 0.1 * g.rng.standard_normal(c_out)).astype(np.float32)),
            g.const(f"bn{i}_bias", (0.1 * g.rng.standard_normal(c_out)).astype(np.float32)),
            g.const(f"bn{i}_mean", (0.1 * g.rng.standard_normal(c_out)).astype(np.float32)),
            g.const(f"bn{i}_var", (1 + 0.1 * g.rng.random(c_out)).astype(np.float32)),
        ]
        h = g.op("BatchNormalization", [h] + bn, f"bn{i}", epsilon=1e-5)
        h = g.op("Relu", [h], f"relu{i}")
        h = g.op("MaxPool", [h], f"pool{i}", kernel_shape=[2, 2], strides=[2, 2])
        channels = c_out
    h = g.op("Flatten", [g.op("GlobalAveragePool", [h], "gap")], "flatten", axis=1)
    w = g.weight("fc_weight", [10, channels])
    b = g.weight("fc_bias", [10], scale=0.1)
    g.op("Gemm", [h, w, b], "fc", transB=1)
    g.nodes[-1].output[0] = "logits"
    model = g.model(
        "cnn",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, 32, 32])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 10])],
    )
    return model, [{"image": (1, 3, 32, 32)}]


def resnet_stage(size=56):
    """The first stage of ResNet-18 (torchvision's layer1) on one 64x56x56 feature map: two
    basic blocks, each conv3x3-bn-relu-conv3x3-bn plus the identity, then relu. As PyTorch
    exports a model in eval mode without constant folding: convolutions without bias, each
    followed by a BatchNormalization node (momentum 0.9, epsilon 1e-5) with its statistics.
    `size` other than 56 makes the same stage, same weights, on a smaller map: at 56x56 the
    reference executor needs minutes, at 8x8 seconds."""
    g = Graph(seed=5)
    channels = 64
    h = "x"

    def conv_bn(x, hint):
        w = g.weight(f"{hint}_conv_weight", [channels, channels, 3, 3],
                     scale=np.sqrt(2.0 / (9 * channels)))
        y = g.op("Conv", [x, w], f"{hint}_conv", kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                 strides=[1, 1], dilations=[1, 1], group=1)
        bn = [
            g.const(f"{hint}_bn_scale",
                    (1 + 0.1 * g.rng.standard_normal(channels)).astype(np.float32)),
            g.const(f"{hint}_bn_bias", (0.1 * g.rng.standard_normal(channels)).astype(np.float32)),
            g.const(f"{hint}_bn_mean", (0.1 * g.rng.standard_normal(channels)).astype(np.float32)),
            g.const(f"{hint}_bn_var", (1 + 0.1 * g.rng.random(channels)).astype(np.float32)),
        ]
        return g.op("BatchNormalization", [y] + bn, f"{hint}_bn", epsilon=1e-5, momentum=0.9)

    for block in range(2):
        hint = f"layer1_{block}"
        out = g.op("Relu", [conv_bn(h, f"{hint}_1")], f"{hint}_relu1")
        out = conv_bn(out, f"{hint}_2")
        h = g.op("Relu", [g.op("Add", [out, h], f"{hint}_residual")], f"{hint}_relu2")
    g.nodes[-1].output[0] = "y"
    model = g.model(
        "resnet_stage",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, channels, size, size])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, channels, size, size])],
    )
    return model, [{"x": (1, channels, size, size)}]


def gcn_graph(rng, nodes, edges):
    """A seeded random directed graph with a self-loop on every node, as GCN adds them: the edge
    sources, destinations and GCN's symmetric normalisation 1 / sqrt(deg(src) * deg(dst)), with
    degrees counted over destinations (duplicate edges kept: each one counts)."""
    src = np.concatenate([rng.integers(0, nodes, edges), np.arange(nodes)]).astype(np.int64)
    dst = np.concatenate([rng.integers(0, nodes, edges), np.arange(nodes)]).astype(np.int64)
    degree = np.bincount(dst, minlength=nodes).astype(np.float64)
    weight = (1.0 / np.sqrt(degree[src] * degree[dst])).astype(np.float32)
    return src, dst, weight


def gcn_layer(scatter="elements"):
    """One graph convolution layer (Kipf and Welling) on a seeded random graph of 300 nodes and
    1200 random edges plus self-loops, written as GNN exporters write message passing: X W
    (MatMul, 32 -> 16 features), then each edge's source row gathered (Gather, axis 0), scaled by
    its normalised weight (Mul by a constant [E, 1]) and summed into its destination row
    (ScatterElements with reduction add into zeros, the destinations expanded to [E, 16] as
    PyTorch's index.expand_as writes them; or, with scatter="nd", ScatterND over dst[:, None]),
    then a bias and Relu. Kiln imports the aggregation as a CSR SpMM."""
    nodes, features, hidden = 300, 32, 16
    g = Graph(seed=6)
    src, dst, weight = gcn_graph(g.rng, nodes, 1200)
    edges = len(src)
    h = g.op("MatMul", ["x", g.weight("weight", [features, hidden])], "xw")
    messages = g.op("Gather", [h, g.const("edge_src", src)], "messages", axis=0)
    messages = g.op("Mul", [messages, g.const("edge_weight", weight.reshape(edges, 1))],
                    "weighted")
    zeros = g.op("ConstantOfShape", [g.const("out_shape", np.array([nodes, hidden], np.int64))],
                 "zeros", value=numpy_helper.from_array(np.zeros(1, np.float32)))
    if scatter == "nd":
        index = g.const("edge_dst", dst.reshape(edges, 1))
        aggregated = g.op("ScatterND", [zeros, index, messages], "aggregate", reduction="add")
    else:
        index = g.op("Expand", [
            g.op("Unsqueeze", [g.const("edge_dst", dst), g.const("axis1", np.array([1], np.int64))],
                 "dst_column"),
            g.const("index_shape", np.array([edges, hidden], np.int64))], "index")
        aggregated = g.op("ScatterElements", [zeros, index, messages], "aggregate", axis=0,
                          reduction="add")
    biased = g.op("Add", [aggregated, g.weight("bias", [hidden], scale=0.1)], "biased")
    g.op("Relu", [biased], "relu")
    g.nodes[-1].output[0] = "y"
    model = g.model(
        "gcn_layer" if scatter == "elements" else "gcn_layer_nd",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [nodes, features])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [nodes, hidden])],
    )
    return model, [{"x": (nodes, features)}]


def bigbird_block_layout(rng, block_rows, window=1, global_blocks=1, random_blocks=1):
    """A BigBird-like block pattern (block_rows x block_rows, True attended): a window of blocks
    around the diagonal, the first `global_blocks` block rows and columns, and `random_blocks`
    more seeded random block columns per block row."""
    layout = np.zeros((block_rows, block_rows), dtype=bool)
    for i in range(block_rows):
        layout[i, max(0, i - window):min(block_rows, i + window + 1)] = True
    layout[:global_blocks, :] = True
    layout[:, :global_blocks] = True
    for i in range(global_blocks, block_rows):
        free = np.flatnonzero(~layout[i])
        take = min(random_blocks, len(free))
        layout[i, rng.choice(free, size=take, replace=False)] = True
    return layout


def block_attention(seq=1024, block=32, heads=2, dim=32, window=1, random_blocks=1, seed=7):
    """One block-sparse self-attention layer as exporters write masked attention densely: X
    [1024, 64] projected to Q, K and V (MatMul by constant weights), the heads split (Reshape,
    Transpose: 2 heads of 32; K transposed straight to K^T [2, 32, 1024]), scores = Q K^T times
    1/sqrt(32) (Mul), plus a constant [1024, 1024] mask of 0 and -1e9 (Add), Softmax over the
    last axis, times V, the heads merged (Transpose, Reshape) and an output MatMul. The mask is a
    seeded BigBird-like pattern of 32 x 32 blocks (a window of 3 blocks, one global block row
    and column, one random block per row: 185 of 1024 blocks, 18%), sparse enough that Kiln
    imports the attention as the block-sparse attention kernels, which beat the dense ones
    there (docs/sparse.md). The parameters make the other densities the threshold was measured
    on; the committed model is the defaults."""
    hidden = heads * dim
    g = Graph(seed=seed)
    layout = bigbird_block_layout(g.rng, seq // block, window=window, random_blocks=random_blocks)
    attended = np.kron(layout, np.ones((block, block), dtype=bool))
    mask = np.where(attended, 0.0, -1e9).astype(np.float32)

    def heads_of(hint, perm):
        projected = g.op("MatMul", ["x", g.weight(f"w_{hint}", [hidden, hidden])], hint)
        split = g.op("Reshape", [projected, g.const("head_shape",
                                                    np.array([seq, heads, dim], np.int64))],
                     f"{hint}_heads")
        return g.op("Transpose", [split], f"{hint}_t", perm=perm)

    q = heads_of("q", [1, 0, 2])  # [4, 256, 64]
    k_t = heads_of("k", [1, 2, 0])  # [4, 64, 256]
    v = heads_of("v", [1, 0, 2])
    scores = g.op("MatMul", [q, k_t], "scores")
    scaled = g.op("Mul", [scores, g.const("scale", np.array(1.0 / np.sqrt(dim), np.float32))],
                  "scaled")
    masked = g.op("Add", [scaled, g.const("mask", mask)], "masked")
    probs = g.op("Softmax", [masked], "probs", axis=-1)
    context = g.op("MatMul", [probs, v], "context")
    merged = g.op("Reshape", [g.op("Transpose", [context], "context_t", perm=[1, 0, 2]),
                              g.const("merged_shape", np.array([seq, hidden], np.int64))],
                  "merged")
    g.op("MatMul", [merged, g.weight("w_out", [hidden, hidden])], "out")
    g.nodes[-1].output[0] = "y"
    model = g.model(
        "block_attention",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [seq, hidden])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [seq, hidden])],
    )
    return model, [{"x": (seq, hidden)}]


# The models committed under examples/models, and the ones too big to commit, which the build
# makes into its own folder (tests/cli/CMakeLists.txt, bench/CMakeLists.txt).
COMMITTED = [("mlp", mlp), ("transformer_block", transformer_block), ("cnn", cnn),
             ("resnet_stage", resnet_stage), ("gcn_layer", gcn_layer),
             ("gcn_layer_nd", lambda: gcn_layer("nd")), ("block_attention", block_attention)]
GENERATED = [("bert_layer", bert_layer), ("resnet_stage_8x8", lambda: resnet_stage(8))]


def write(out_dir, name, model, input_sets):
    folder = os.path.join(out_dir, name)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "model.onnx")
    onnx.save(model, path)
    session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(100)
    for index, shapes in enumerate(input_sets):
        data_dir = os.path.join(folder, f"test_data_set_{index}")
        os.makedirs(data_dir, exist_ok=True)
        feeds = {k: rng.uniform(-1, 1, size=s).astype(np.float32) for k, s in shapes.items()}
        results = session.run(None, feeds)
        for j, inp in enumerate(session.get_inputs()):
            tensor = numpy_helper.from_array(feeds[inp.name], inp.name)
            with open(os.path.join(data_dir, f"input_{j}.pb"), "wb") as f:
                f.write(tensor.SerializeToString())
        for j, (out, value) in enumerate(zip(session.get_outputs(), results)):
            tensor = numpy_helper.from_array(value, out.name)
            with open(os.path.join(data_dir, f"output_{j}.pb"), "wb") as f:
                f.write(tensor.SerializeToString())
    print(f"{name}: {len(model.graph.node)} nodes, {os.path.getsize(path)} bytes, "
          f"{len(input_sets)} test data sets")


def script_key():
    """What the generated models depend on: this script and the onnx and onnxruntime versions."""
    with open(os.path.abspath(__file__), "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:16]
    return f"onnx {onnx.__version__}, onnxruntime {onnxruntime.__version__}, script {digest}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="write the generated models (" +
                        ", ".join(n for n, _ in GENERATED) + ") into this folder, unless a "
                        "stamp there says they are up to date, instead of the committed ones "
                        "into examples/models")
    args = parser.parse_args()
    if not args.out:
        for name, make in COMMITTED:
            model, input_sets = make()
            write(HERE, name, model, input_sets)
        return 0
    out = os.path.abspath(args.out)
    stamp = os.path.join(out, "stamp")
    key = script_key()
    if os.path.exists(stamp):
        with open(stamp) as f:
            if f.readline().strip() == key:
                print(f"make_models: {out} is up to date ({key})")
                return 0
        os.remove(stamp)
    for name, make in GENERATED:
        shutil.rmtree(os.path.join(out, name), ignore_errors=True)
        model, input_sets = make()
        write(out, name, model, input_sets)
    with open(stamp, "w") as f:
        f.write(key + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
