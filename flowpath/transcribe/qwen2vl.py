"""`Qwen2VLTranscriber` (Flow2Mermaid): a Qwen2-VL checkpoint, optionally with a peft LoRA
adapter, reads the letter-labelled image and writes Mermaid whose node ids are the letters.

Also holds what training and inference must share: the prompt, the processor (built without a
video processor, because transformers' ``Qwen2VLProcessor``/``AutoProcessor`` construct one that
needs torchvision, which this project does not install) and the chat-text layout. The training
side (example encoding, the tiny random-init model of the CPU recipe) lives in ``training/``.

Everything heavy (torch, transformers, peft) is imported inside functions.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

from flowpath.graph import FlowChart, Node
from flowpath.models.base import LabelledChart, Transcriber, Transcription

logger = logging.getLogger(__name__)

#: The instruction shown with the labelled image. The generator's SFT JSONL uses this same constant
#: (data_gen SFT_PROMPT), so inference sees what training saw.
FLOW2MERMAID_PROMPT = (
    "Transcribe this flowchart into Mermaid flowchart syntax. Each node is marked with a red "
    "letter; use exactly those letters as node ids, keep every node's text, every edge and every "
    "edge label."
)

#: Qwen2-VL's chat layout, used when a tokenizer carries no chat template (tiny test tokenizers).
CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}{% else %}"
    "{% for c in message['content'] %}{% if c['type'] == 'image' %}"
    "<|vision_start|><|image_pad|><|vision_end|>{% elif c['type'] == 'text' %}{{ c['text'] }}"
    "{% endif %}{% endfor %}{% endif %}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)

#: decoding settings tried in turn until the output parses and its ids are the letters
DEFAULT_DECODINGS: tuple[dict[str, Any], ...] = (
    {"do_sample": False, "num_beams": 1},
    {"do_sample": False, "num_beams": 1, "repetition_penalty": 1.05},
    {"do_sample": True, "temperature": 0.7, "top_p": 0.9},
)


def _require_models(feature: str) -> None:
    from flowpath.errors import require

    for mod in ("torch", "transformers"):
        require(mod, "models", feature)


def build_processor(source: str | Path, *, min_pixels: int | None = None,
                    max_pixels: int | None = None) -> Any:
    """A ``Qwen2VLProcessor`` from a model or adapter directory, without a video processor.

    Args:
        source: directory holding tokenizer files (and optionally ``preprocessor_config.json``).
        min_pixels, max_pixels: pixel budget of the image processor; images are resized to a
            multiple of 28 px keeping their aspect ratio, within this budget.

    Returns:
        The processor (``.tokenizer``, ``.image_processor``; ``chat_template`` always set).
    """
    _require_models("the Qwen2-VL processor")
    from transformers import AutoTokenizer
    from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import Qwen2VLImageProcessorPil
    from transformers.models.qwen2_vl.processing_qwen2_vl import Qwen2VLProcessor

    source = Path(source)
    tok = AutoTokenizer.from_pretrained(str(source))
    kw: dict[str, Any] = {}
    if min_pixels is not None:
        kw["min_pixels"] = int(min_pixels)
    if max_pixels is not None:
        kw["max_pixels"] = int(max_pixels)
    if (source / "preprocessor_config.json").exists():
        ip = Qwen2VLImageProcessorPil.from_pretrained(str(source), **kw)
    else:
        ip = Qwen2VLImageProcessorPil(**kw)
    template = getattr(tok, "chat_template", None) or CHAT_TEMPLATE
    return _processor_class(Qwen2VLProcessor)(image_processor=ip, tokenizer=tok, chat_template=template)


_PROC_CLS: Any = None


def _processor_class(base: Any) -> Any:
    """``Qwen2VLProcessor`` minus the video processor.

    transformers derives a processor's parts from its ``__init__`` signature
    (``ProcessorMixin.get_attributes``), and building the video part needs torchvision. A
    subclass whose ``__init__`` names only the image processor and the tokenizer is a complete
    image+text processor: ``__call__`` with ``images=`` never touches video.
    """
    global _PROC_CLS
    if _PROC_CLS is None:
        class Flow2MermaidProcessor(base):  # type: ignore[misc, valid-type]
            def __init__(self, image_processor: Any = None, tokenizer: Any = None,
                         chat_template: str | None = None, **kwargs: Any) -> None:
                base.__init__(self, image_processor, tokenizer, None, chat_template=chat_template, **kwargs)

        _PROC_CLS = Flow2MermaidProcessor
    return _PROC_CLS


def chat_messages(prompt: str = FLOW2MERMAID_PROMPT, answer: str | None = None) -> list[dict[str, Any]]:
    """The SFT chat layout: user (image + prompt), optionally the assistant's Mermaid."""
    msgs: list[dict[str, Any]] = [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": prompt}]}]
    if answer is not None:
        msgs.append({"role": "assistant", "content": [{"type": "text", "text": answer}]})
    return msgs


def render_chat(processor: Any, messages: list[dict[str, Any]], *, add_generation_prompt: bool) -> str:
    """Chat text with one ``<|image_pad|>`` per image (the processor expands it)."""
    tok = processor.tokenizer
    template = getattr(processor, "chat_template", None) or getattr(tok, "chat_template", None) or CHAT_TEMPLATE
    return tok.apply_chat_template(messages, chat_template=template, tokenize=False,
                                   add_generation_prompt=add_generation_prompt)


def check_letters(chart: FlowChart, letters: list[str]) -> list[str]:
    """What is wrong with a transcribed chart's node ids, given the labels (empty = fine)."""
    ids = set(chart.nodes)
    want = set(letters)
    out = []
    extra = sorted(ids - want)
    missing = sorted(want - ids, key=lambda s: (len(s), s))
    if extra:
        out.append(f"node ids that are not labels: {', '.join(extra)}")
    if missing:
        out.append(f"labels missing from the output: {', '.join(missing)}")
    return out


def validate_output(text: str, letters: list[str]) -> tuple[FlowChart | None, list[str]]:
    """Strict-parse model output and check its ids against the labels.

    Returns:
        ``(chart, [])`` when the output is valid Mermaid over exactly the labels, else
        ``(chart_or_None, reasons)``.
    """
    from flowpath.mermaid import MermaidSyntaxError, parse_mermaid

    try:
        chart = parse_mermaid(text, strict=True)
    except MermaidSyntaxError as exc:
        return None, [f"not valid Mermaid: {exc}"]
    return chart, check_letters(chart, letters)


def repair_output(text: str, letters: list[str]) -> tuple[FlowChart, list[str]]:
    """Lenient parse + id repair: nodes that are not labels are dropped, missing labels are
    added as empty nodes. Returns the chart and what was repaired, in plain words."""
    from flowpath.mermaid import parse_mermaid

    notes: list[str] = []
    chart = parse_mermaid(text, strict=False)
    notes.extend(f"repaired: {w}" for w in chart.warnings)
    want = set(letters)
    for nid in [n for n in chart.nodes if n not in want]:
        chart.remove_node(nid)
        notes.append(f"repaired: dropped node {nid!r}, which is not a label")
    for letter in letters:
        if letter not in chart.nodes:
            chart.add_node(Node(letter, ""))
            notes.append(f"repaired: label {letter} was missing; added without text")
    chart.warnings = list(notes)
    return chart, notes


class Qwen2VLTranscriber(Transcriber):
    """Flow2Mermaid with Qwen2-VL: generate, validate, retry, repair.

    Args:
        base: directory of a ``Qwen2VLForConditionalGeneration`` checkpoint (or a merged one).
        adapter: optional directory of a peft LoRA adapter saved by
            ``training/train_flow2mermaid.py`` (its processor files are used when present).
        device: ``cpu``, ``cuda``, ``cuda:1``, ``auto``.
        dtype: torch dtype name (``float32``, ``bfloat16``); default float32 on CPU, bfloat16 on CUDA.
        max_new_tokens: generation budget per attempt.
        min_pixels, max_pixels: image pixel budget (aspect ratio kept). Default: the budget of
            the processor saved with the adapter (or the base), i.e. the resolution the model was
            trained at; set them only to deliberately run at another resolution.
        decodings: generation settings tried in order (see `DEFAULT_DECODINGS`).
        prompt: the instruction; must match the one used in training.

    >>> tr = Qwen2VLTranscriber("ckpt/qwen2vl", adapter="runs/f2m/adapter")  # doctest: +SKIP
    >>> tr([labelled_chart])[0].mermaid                                      # doctest: +SKIP
    """

    name = "qwen2vl"

    def __init__(self, base: str | Path, adapter: str | Path | None = None, *, device: str = "cpu",
                 dtype: str | None = None, max_new_tokens: int = 1024, min_pixels: int | None = None,
                 max_pixels: int | None = None,
                 decodings: list[dict[str, Any]] | tuple[dict[str, Any], ...] = DEFAULT_DECODINGS,
                 prompt: str = FLOW2MERMAID_PROMPT, seed: int = 0) -> None:
        _require_models("Qwen2VLTranscriber")
        import torch
        from transformers import Qwen2VLForConditionalGeneration

        base = Path(base)
        if not base.is_dir():
            raise ValueError(f"Qwen2VLTranscriber: base {str(base)!r} is not a local model directory "
                             "(no hub downloads here)")
        if adapter is not None and not Path(adapter).is_dir():
            raise ValueError(f"Qwen2VLTranscriber: adapter {str(adapter)!r} is not a directory")
        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        self.device = device
        tdtype = getattr(torch, dtype) if dtype else (torch.bfloat16 if device.startswith("cuda") else torch.float32)
        model: Any = Qwen2VLForConditionalGeneration.from_pretrained(str(base), dtype=tdtype)
        if adapter is not None:
            from flowpath.errors import require

            require("peft", "models", "Qwen2VLTranscriber adapters")
            from peft import PeftModel

            model = PeftModel.from_pretrained(model, str(adapter))
        self.model = model.to(device).eval()
        proc_dir = Path(adapter) if adapter is not None and (Path(adapter) / "tokenizer_config.json").exists() else base
        self.processor = build_processor(proc_dir, min_pixels=min_pixels, max_pixels=max_pixels)
        self.max_new_tokens = int(max_new_tokens)
        self.decodings = [dict(d) for d in decodings] or [dict(DEFAULT_DECODINGS[0])]
        self.prompt = prompt
        self.seed = seed

    def generate(self, image: Any, **decoding: Any) -> str:
        """One generation for one image; returns the decoded new text."""
        import torch
        from PIL import Image

        pil = Image.fromarray(image) if not isinstance(image, Image.Image) else image
        text = render_chat(self.processor, chat_messages(self.prompt), add_generation_prompt=True)
        inputs = self.processor(text=[text], images=[pil], return_tensors="pt").to(self.device)
        torch.manual_seed(self.seed)
        tok = self.processor.tokenizer
        with torch.no_grad():
            out = self.model.generate(**inputs, max_new_tokens=self.max_new_tokens,
                                      pad_token_id=tok.pad_token_id, eos_token_id=tok.eos_token_id,
                                      **decoding)
        new = out[0, inputs["input_ids"].shape[1]:]
        return tok.decode(new, skip_special_tokens=True)

    def __call__(self, charts: list[LabelledChart]) -> list[Transcription]:
        return [self._one(c) for c in charts]

    def _one(self, chart: LabelledChart) -> Transcription:
        from flowpath.mermaid import to_mermaid

        t0 = time.perf_counter()
        letters = list(chart.regions)
        problems: list[str] = []
        outputs: list[str] = []
        for k, decoding in enumerate(self.decodings):
            try:
                text = self.generate(chart.labelled_image, **decoding)
            except Exception as exc:  # generation itself failed: report, try the next setting
                problems.append(f"attempt {k + 1} ({_fmt(decoding)}): generation failed: {exc}")
                continue
            outputs.append(text)
            fc, reasons = validate_output(text, letters)
            if fc is not None and not reasons:
                return Transcription(mermaid=to_mermaid(fc), chart=fc, problems=problems,
                                     meta={"transcriber": self.name, "attempts": k + 1,
                                           "seconds": round(time.perf_counter() - t0, 3)})
            problems.append(f"attempt {k + 1} ({_fmt(decoding)}): " + "; ".join(reasons))
        # every attempt failed validation: repair the first output leniently
        raw = outputs[0] if outputs else ""
        fc, notes = repair_output(raw, letters)
        problems.extend(notes)
        return Transcription(mermaid=to_mermaid(fc), chart=fc, problems=problems,
                             meta={"transcriber": self.name, "attempts": len(self.decodings),
                                   "repaired": True, "raw": raw,
                                   "seconds": round(time.perf_counter() - t0, 3)})


def _fmt(decoding: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in decoding.items())
