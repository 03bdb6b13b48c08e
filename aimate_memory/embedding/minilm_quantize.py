"""The bundled MiniLM rewritten once into the form that runs fastest here: dynamically quantized int8.

The bundled file stores int8 weights that ONNX Runtime dequantizes into float32 when it optimizes the graph,
so every MatMul ran in float32 (60 % of the time, at about the float peak of the 2-core box). The rewrite,
measured 2026-11-25 on 451 Latin chunks of the 10k benchmark vault (4 texts a batch, one thread; docs/benchmarks.md,
"Embedding throughput"):

=========================================================  ==========
step                                                         texts/s
=========================================================  ==========
the bundled model as ONNX Runtime runs it                         36
+ per-channel dynamic int8 (MatMulInteger)                        64
+ Gelu fused into one op                                          69
+ the NaN guards after each softmax dropped                       87
+ ONNX Runtime's SkipLayerNormalization fusion turned off        104
=========================================================  ==========

Vectors stay at cosine 0.994 (mean; 0.983 at worst) to the float model's; per-tensor quantization fell to 0.966.
The NaN guards (``Where(IsNaN(p), 0, p)`` after each attention softmax, from the exporter) only matter for a
row whose every key is masked, which a tokenized text never has: [CLS] is always unmasked. The last row is a
session option (`SESSION_DISABLED_OPTIMIZERS`): ONNX Runtime 1.32's fused kernel took 20-25 % of the run.

It needs the `onnx` package, imported only here: once per model cache, about 4 s.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from onnx import GraphProto

#: ONNX Runtime optimizers to turn off when running the rewritten model (see the table above).
SESSION_DISABLED_OPTIMIZERS = ["SkipLayerNormFusion"]


def quantize_minilm(source: Path, target: Path) -> None:
    """Write the fast form of the MiniLM at `source` (an ONNX file) to `target` (replaced atomically)."""
    import onnx
    import onnxruntime as ort
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from onnxruntime.transformers.fusion_biasgelu import FusionBiasGelu
    from onnxruntime.transformers.fusion_gelu import FusionGelu
    from onnxruntime.transformers.onnx_model import OnnxModel

    work = target.with_name(f"{target.name}.tmp-{os.getpid()}")
    work.mkdir(parents=True, exist_ok=True)
    try:
        folded = work / "float.onnx"
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC  # constant folding only
        options.optimized_model_filepath = str(folded)
        ort.InferenceSession(str(source), options, providers=["CPUExecutionProvider"])

        graph = OnnxModel(onnx.load(str(folded)))
        graph.disable_shape_inference()  # it would need sympy, and these two fusions do without
        FusionGelu(graph).apply()
        FusionBiasGelu(graph, False).apply()
        graph.prune_graph()
        dropped = drop_softmax_nan_guards(graph.model.graph)
        if dropped == 0:
            raise ValueError("no attention softmax found: not the MiniLM graph this conversion was written for")
        fused = work / "fused.onnx"
        onnx.save(graph.model, str(fused))

        quantized = work / "model.onnx"
        with _no_stderr_logging():
            quantize_dynamic(fused, quantized, per_channel=True, weight_type=QuantType.QInt8)
        os.replace(quantized, target)
    finally:
        for leftover in work.iterdir():
            leftover.unlink()
        work.rmdir()


@contextlib.contextmanager
def _no_stderr_logging() -> Iterator[None]:
    """`quantize_dynamic` warns through `logging.warning`, which on a root logger without handlers installs a
    stderr handler for the rest of the process (`basicConfig`): an MCP server or a hook would then print every
    later warning into its client. A handler of its own while it runs keeps stderr clean; an application that
    configured logging gets the line in its log."""
    root = logging.getLogger()
    if root.handlers:
        yield
        return
    guard = logging.NullHandler()
    root.addHandler(guard)
    try:
        yield
    finally:
        root.removeHandler(guard)


def drop_softmax_nan_guards(graph: GraphProto) -> int:
    """Remove every ``Where(IsNaN(p), 0, p)`` whose `p` is a Softmax output, rewiring its readers to `p`.
    Returns how many were removed."""
    producer = {output: node for node in graph.node for output in node.output}
    readers: dict[str, int] = {}
    for node in graph.node:
        for name in node.input:
            readers[name] = readers.get(name, 0) + 1
    dropped: set[int] = set()
    renamed: dict[str, str] = {}
    for node in graph.node:
        if node.op_type != "Where" or len(node.input) != 3:
            continue
        condition, probabilities = producer.get(node.input[0]), producer.get(node.input[2])
        if (
            condition is not None
            and condition.op_type == "IsNaN"
            and condition.input[0] == node.input[2]
            and readers[node.input[0]] == 1
            and probabilities is not None
            and probabilities.op_type == "Softmax"
        ):
            renamed[node.output[0]] = node.input[2]
            dropped.update((id(node), id(condition)))
    kept = [node for node in graph.node if id(node) not in dropped]
    for node in kept:
        for position, name in enumerate(node.input):
            if name in renamed:
                node.input[position] = renamed[name]
    for output in graph.output:
        if output.name in renamed:
            raise ValueError("a NaN guard feeds a graph output")
    del graph.node[:]
    graph.node.extend(kept)
    return len(renamed)
