"""The real Qwen2-VL Flow2Mermaid path on a tiny random-init model: processor without a video
processor, prompt/image masking, one LoRA training step via the training script, adapter save and
load, generation, validation/repair, merge."""

from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest

from tests.markers import REPO_ROOT, require_peft, require_transformers

pytestmark = [require_transformers, require_peft]

MERMAIDS = [
    'flowchart TD\n    A(["Start"]) --> B{"Is x > 3?"}\n    B -->|"Yes"| C["Double x"]\n    B -->|"No"| D(["End"])\n',
    'flowchart TD\n    A(["Begin"]) --> B[/"Read the file"/]\n    B --> C["Count the words"]\n    C --> D(["Stop"])\n',
]
PIX = {"min_pixels": 4 * 28 * 28, "max_pixels": 16 * 28 * 28}


def _load_train_module():
    spec = importlib.util.spec_from_file_location("train_flow2mermaid", REPO_ROOT / "training" / "train_flow2mermaid.py")
    mod = importlib.util.module_from_spec(spec)
    import sys

    sys.modules[spec.name] = mod  # dataclasses resolve string annotations through sys.modules
    spec.loader.exec_module(mod)
    return mod


def _image(w=180, h=120, seed=0):
    rng = np.random.default_rng(seed)
    img = np.full((h, w, 3), 255, np.uint8)
    img[20:50, 30:150] = rng.integers(0, 255, 3)
    return img


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory):
    import torch

    from flowpath.transcribe.qwen2vl import build_processor
    from training.tiny_qwen2vl import tiny_qwen2vl, train_tiny_tokenizer

    torch.set_num_threads(1)
    d = tmp_path_factory.mktemp("tiny_qwen2vl")
    tok = train_tiny_tokenizer(MERMAIDS * 3, vocab_size=300)
    model = tiny_qwen2vl(tok)
    model.save_pretrained(d, safe_serialization=True)
    tok.save_pretrained(d)
    build_processor(d, **PIX).image_processor.save_pretrained(d)
    return d


@pytest.fixture(scope="module")
def sft_jsonl(tmp_path_factory):
    from PIL import Image

    from flowpath.transcribe.qwen2vl import FLOW2MERMAID_PROMPT

    d = tmp_path_factory.mktemp("sft")
    (d / "sft").mkdir()
    lines = []
    for i, m in enumerate(MERMAIDS):
        Image.fromarray(_image(seed=i)).save(d / "sft" / f"c{i}.png")
        lines.append(json.dumps({"id": f"c{i}", "images": [f"sft/c{i}.png"], "messages": [
            {"role": "user", "content": [{"type": "image"}, {"type": "text", "text": FLOW2MERMAID_PROMPT}]},
            {"role": "assistant", "content": [{"type": "text", "text": m}]}]}))
    (d / "sft.jsonl").write_text("\n".join(lines) + "\n")
    return d / "sft.jsonl"


def test_processor_builds_without_video_and_keeps_aspect_ratio(tiny_dir):
    from PIL import Image

    from flowpath.transcribe.qwen2vl import build_processor

    proc = build_processor(tiny_dir, **PIX)
    assert not hasattr(proc, "video_processor") or proc.video_processor is None
    for w, h in [(300, 100), (100, 300)]:
        out = proc(text=["<|vision_start|><|image_pad|><|vision_end|>hi"], images=[Image.new("RGB", (w, h))],
                   return_tensors="pt")
        _, gh, gw = out["image_grid_thw"][0].tolist()
        assert gh * gw * 14 * 14 <= PIX["max_pixels"]
        assert (gw > gh) == (w > h)  # orientation and rough aspect ratio survive the budget
        n_img = int((out["input_ids"][0] == proc.image_token_id).sum())
        assert n_img == gh * gw // 4  # 2x2 patch merge


def test_encode_masks_prompt_and_image_tokens(tiny_dir):
    from PIL import Image

    from flowpath.transcribe.qwen2vl import build_processor
    from training.train_flow2mermaid import encode_example

    proc = build_processor(tiny_dir, **PIX)
    ex = encode_example(proc, Image.fromarray(_image()), MERMAIDS[0])
    labels, ids = ex["labels"], ex["input_ids"]
    assert (labels[ids == proc.image_token_id] == -100).all()
    learned = labels[labels != -100]
    text = proc.tokenizer.decode(learned, skip_special_tokens=True)
    assert text.strip() == MERMAIDS[0].strip()
    # everything before the answer is masked: the first learned position follows only -100s
    first = int((labels != -100).nonzero()[0])
    assert (labels[:first] == -100).all() and first > int((ids == proc.image_token_id).nonzero()[-1])


def test_lora_step_save_load_generate_and_merge(tiny_dir, sft_jsonl, tmp_path):
    import torch
    from safetensors.torch import load_file

    from flowpath.geometry import Region
    from flowpath.models.base import LabelledChart
    from flowpath.transcribe import make_transcriber

    train = _load_train_module()
    cfg = train.Flow2MermaidConfig(base_model=str(tiny_dir), train_jsonl=str(sft_jsonl),
                                   output_dir=str(tmp_path / "run"), max_steps=2, gradient_accumulation_steps=1,
                                   learning_rate=1e-2, lora_r=4, lora_alpha=8, lora_dropout=0.0, merge=True,
                                   logging_steps=1, **PIX)
    summary = train.train(cfg)
    assert summary["steps"] == 2 and np.isfinite(summary["final_loss"])
    adapter = tmp_path / "run" / "adapter"
    weights = load_file(adapter / "adapter_model.safetensors")
    # LoRA B matrices start at zero; after a step they are not, in language and vision blocks
    b_norms = {k: float(v.abs().sum()) for k, v in weights.items() if "lora_B" in k}
    assert any(v > 0 for k, v in b_norms.items() if "visual" in k)
    assert any(v > 0 for k, v in b_norms.items() if "language_model" in k or "layers" in k and "visual" not in k)
    assert (tmp_path / "run" / "config.yaml").exists()
    assert not list((tmp_path / "run").rglob("*.bin"))  # safetensors only

    letters = {"A": Region((0, 0, 40, 40)), "B": Region((0, 60, 40, 100))}
    img = _image()
    # no pixel budget given: inference runs at the resolution the adapter was trained at
    tr = make_transcriber("qwen2vl", base=str(tiny_dir), adapter=str(adapter), max_new_tokens=12,
                          decodings=[{"do_sample": False}, {"do_sample": True, "temperature": 1.0}])
    assert tr.processor.image_processor.size.longest_edge == PIX["max_pixels"]
    assert tr.processor.image_processor.size.shortest_edge == PIX["min_pixels"]
    out = tr([LabelledChart(img, img, letters)])[0]
    # a 2-step random model cannot write valid Mermaid: retried, then repaired, and it says so
    assert set(out.chart.nodes) == {"A", "B"}
    assert out.meta["attempts"] >= 1
    if out.meta.get("repaired"):
        assert sum(p.startswith("attempt") for p in out.problems) == 2
        assert any(p.startswith("repaired") for p in out.problems)
    # the merged model loads with plain transformers and gives the same logits as base + adapter
    from peft import PeftModel
    from transformers import Qwen2VLForConditionalGeneration

    merged = Qwen2VLForConditionalGeneration.from_pretrained(tmp_path / "run" / "merged")
    peft_model = PeftModel.from_pretrained(Qwen2VLForConditionalGeneration.from_pretrained(tiny_dir), adapter)
    ids = torch.tensor([[5, 6, 7, 8]])
    with torch.no_grad():
        a = merged(input_ids=ids).logits
        b = peft_model(input_ids=ids).logits
    assert torch.allclose(a, b, atol=1e-4)


def test_bad_model_dir_is_a_clear_error(tmp_path):
    from flowpath.transcribe import make_transcriber

    with pytest.raises(ValueError, match="not a local model directory"):
        make_transcriber("qwen2vl", base=str(tmp_path / "nope"))
