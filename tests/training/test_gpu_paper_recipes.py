"""The paper recipes on a CUDA GPU (``pytest -m gpu``), with random-init models of the real
architectures (no checkpoint can be downloaded here):

* Flow2Mermaid: ``configs/flow2mermaid_paper.yaml`` (4-bit NF4, bf16, activation checkpointing,
  LoRA r16 on vision + language) on a Qwen2-VL with the 7B architecture for a few steps, then
  `Qwen2VLTranscriber` with the adapter on one febench_dev chart.
* Segmenter: ``configs/segmenter_paper.yaml`` (whole charts, fp16) on a random-init Mask2Former
  with a Swin-tiny-sized backbone for a few steps, then ``flowpath eval segment`` with its
  checkpoint.

Skipped without CUDA (and bitsandbytes for the 4-bit run), with the reason.
"""

from __future__ import annotations

import importlib.util
import json

import pytest

from tests.markers import (
    FEBENCH_DEV,
    REPO_ROOT,
    require_febench,
    require_peft,
    require_transformers,
)


def _cuda() -> bool:
    if importlib.util.find_spec("torch") is None:
        return False
    import torch

    return torch.cuda.is_available()


requires_cuda = pytest.mark.skipif(not _cuda(), reason="needs a CUDA GPU (paper recipes; run with pytest -m gpu)")
requires_bnb = pytest.mark.skipif(importlib.util.find_spec("bitsandbytes") is None,
                                  reason="needs bitsandbytes (4-bit loading): pip install bitsandbytes")
pytestmark = [pytest.mark.gpu, pytest.mark.slow, requires_cuda, require_transformers]


@require_peft
@requires_bnb
@require_febench
def test_flow2mermaid_paper_config_on_the_7b_architecture(tmp_path):
    import torch
    from transformers import Qwen2VLConfig, Qwen2VLForConditionalGeneration

    from flowpath.transcribe import make_transcriber
    from training import train_flow2mermaid
    from training.tiny_qwen2vl import train_tiny_tokenizer
    from training.train_flow2mermaid import read_records

    sft = tmp_path / "sft.jsonl"
    _febench_sft(sft, n=10)
    records = read_records(sft)
    # the 7B architecture (Qwen2-VL-7B-Instruct's sizes) with a tokenizer trained here
    tok = train_tiny_tokenizer([r["target"] for r in records], vocab_size=2000)
    ids = {t: tok.convert_tokens_to_ids(t) for t in ("<|image_pad|>", "<|video_pad|>", "<|vision_start|>",
                                                      "<|vision_end|>", "<|endoftext|>", "<|im_end|>")}
    # Qwen2-VL-7B-Instruct's config.json sizes (7.6 B with its 152k vocabulary)
    text = dict(vocab_size=len(tok), hidden_size=3584, intermediate_size=18944, num_hidden_layers=28,
                num_attention_heads=28, num_key_value_heads=4, max_position_embeddings=32768,
                rope_parameters={"rope_type": "default", "rope_theta": 1000000.0, "mrope_section": [16, 24, 24]},
                bos_token_id=ids["<|endoftext|>"], eos_token_id=ids["<|im_end|>"], pad_token_id=ids["<|endoftext|>"])
    vision = dict(depth=32, embed_dim=1280, hidden_size=3584, num_heads=16, mlp_ratio=4, patch_size=14,
                  spatial_merge_size=2, temporal_patch_size=2)
    cfg = Qwen2VLConfig(text_config=text, vision_config=vision, image_token_id=ids["<|image_pad|>"],
                        video_token_id=ids["<|video_pad|>"], vision_start_token_id=ids["<|vision_start|>"],
                        vision_end_token_id=ids["<|vision_end|>"])
    base = tmp_path / "base"
    with torch.device("cuda"):
        model = Qwen2VLForConditionalGeneration(cfg).to(torch.bfloat16)
    model.save_pretrained(base, safe_serialization=True)
    tok.save_pretrained(base)
    del model
    torch.cuda.empty_cache()
    out = tmp_path / "run"
    rc = train_flow2mermaid.main(["--config", str(REPO_ROOT / "configs" / "flow2mermaid_paper.yaml"),
                                  "--base_model", str(base), "--train_jsonl", str(sft), "--output_dir", str(out),
                                  "--max_steps", "2", "--save_steps", "1", "--logging_steps", "1"])
    assert rc == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["steps"] == 2 and summary["trainable_params"] > 10_000_000
    print(f"peak GPU memory {torch.cuda.max_memory_allocated() / 2**30:.1f} GiB")
    tr = make_transcriber("qwen2vl", base=str(base), adapter=str(out / "adapter"), device="cuda", max_new_tokens=32)
    chart = _labelled_febench_chart()
    result = tr([chart])[0]
    assert set(result.chart.nodes) == set(chart.regions)


def test_segmenter_paper_config_with_a_swin_tiny_sized_model(tmp_path):
    from flowpath.cli import main as flowpath_main
    from tests.segment.synth import write_bench, write_coco
    from training import train_segmenter

    coco = write_coco(tmp_path / "data", n=8)
    bench = write_bench(tmp_path / "bench", styles=("default",))
    out = tmp_path / "run"
    # Swin-tiny sizes (embed 96, depths 2-2-6-2, heads 3-6-12-24), Mask2Former's hidden 256,
    # 100 queries, 6 pixel-decoder and 9 transformer-decoder layers: random init, not downloaded
    rc = train_segmenter.main(["--config", str(REPO_ROOT / "configs" / "segmenter_paper.yaml"),
                               "--train_data", str(coco), "--eval_data", str(bench), "--output_dir", str(out),
                               "--init", "scratch", "--backbone", "swin", "--embed_dim", "96",
                               "--depths", "2", "2", "6", "2", "--num_heads", "3", "6", "12", "24",
                               "--hidden_dim", "256", "--encoder_layers", "6", "--decoder_layers", "9",
                               "--num_queries", "100", "--max_steps", "4", "--save_steps", "2",
                               "--logging_steps", "1", "--dataloader_num_workers", "2"])
    assert rc == 0
    record = json.loads((out / "final" / "train_record.json").read_text())
    assert record["steps"] == 4 and record["device"] == "cuda" and record["parameters"] > 40_000_000
    assert flowpath_main(["eval", "segment", "--bench", str(bench), "--segmenter", "mask2former",
                          "--model-dir", str(out / "final"), "--out", str(tmp_path / "eval")]) == 0


def _febench_charts(n):
    """``(image, regions, gold Mermaid)`` of the first ``n`` febench_dev charts, read from the
    benchmark layout (``charts/ID.png`` + ``charts/ID.json``)."""
    from flowpath.geometry import Region
    from flowpath.io import load_image

    out = []
    for meta in sorted((FEBENCH_DEV / "charts").glob("*.json"))[:n]:
        d = json.loads(meta.read_text())
        regions = [Region(bbox=tuple(nd["bbox"])) for nd in d.get("nodes", {}).values()]
        out.append((load_image(meta.with_suffix(".png")), regions, d.get("mermaid", "")))
    return out


def _febench_sft(path, n):
    """SFT records of febench_dev charts: the letter-labelled image and the gold Mermaid (its
    ids are not the letters; a few steps measure memory and speed, not quality)."""
    from PIL import Image

    from flowpath.labeller import draw_labels
    from flowpath.transcribe.qwen2vl import FLOW2MERMAID_PROMPT

    (path.parent / "sft").mkdir()
    lines = []
    for i, (image, regions, mermaid) in enumerate(_febench_charts(n)):
        labelled, _ = draw_labels(image, regions)
        Image.fromarray(labelled).save(path.parent / "sft" / f"c{i}.png")
        lines.append(json.dumps({"id": f"c{i}", "images": [f"sft/c{i}.png"], "messages": [
            {"role": "user", "content": [{"type": "image"}, {"type": "text", "text": FLOW2MERMAID_PROMPT}]},
            {"role": "assistant", "content": [{"type": "text", "text": mermaid}]}]}))
    path.write_text("\n".join(lines) + "\n")


def _labelled_febench_chart():
    from flowpath.labeller import draw_labels
    from flowpath.models.base import LabelledChart

    image, regions, _ = _febench_charts(1)[0]
    labelled, letters = draw_labels(image, regions)
    return LabelledChart(image, labelled, letters)
