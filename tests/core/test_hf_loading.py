"""`quiet_from_pretrained`: checkpoints load without transformers' per-load progress bar and
warnings, and transformers' logging switches are put back afterwards."""

from __future__ import annotations

from importlib.util import find_spec

import pytest

pytestmark = pytest.mark.skipif(find_spec("transformers") is None or find_spec("torch") is None,
                                reason="needs torch and transformers (flowpath[semantic])")


def test_tiny_model_loads_silently_and_logging_is_restored(tmp_path, capfd):
    from transformers import BertConfig, BertModel
    from transformers.utils import logging as hf_logging

    from flowpath.models.hf import quiet_from_pretrained

    config = BertConfig(vocab_size=64, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=32, max_position_embeddings=32)
    BertModel(config).save_pretrained(tmp_path, safe_serialization=True)
    hf_logging.set_verbosity_warning()
    hf_logging.enable_progress_bar()
    capfd.readouterr()
    model = quiet_from_pretrained(BertModel, tmp_path)
    err = capfd.readouterr().err
    assert model.config.hidden_size == 16
    assert "Loading weights" not in err and "it/s" not in err
    assert hf_logging.get_verbosity() == hf_logging.WARNING and hf_logging.is_progress_bar_enabled()


def test_semantic_encoder_loads_silently(capfd):
    from flowpath.reason.semantic import SentenceEncoder, semantic_available

    if not semantic_available():
        pytest.skip("the packaged sentence encoder is not installed")
    capfd.readouterr()
    encoder = SentenceEncoder()
    assert encoder.dim > 0
    assert "Loading weights" not in capfd.readouterr().err
