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
import threading
import time
from collections.abc import Callable
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



#: Generation budget per labelled node: a node line (id, shape brackets, quoted text) plus its
#: edges with labels is 20-40 tokens in Qwen2-VL's vocabulary; 48 leaves room for long texts.
TOKENS_PER_NODE = 48
#: Budget for the ``flowchart TD`` header and the end-of-turn token.
TOKENS_OVERHEAD = 32


def token_budget(n_nodes: int, cap: int) -> int:
    """``max_new_tokens`` for a chart with ``n_nodes`` labelled nodes, at most ``cap``.

    A fixed budget makes every chart in a batch decode to the longest one's length; a budget
    that follows the node count stops small charts early and bounds a runaway generation.
    """
    return max(1, min(int(cap), TOKENS_OVERHEAD + TOKENS_PER_NODE * max(1, n_nodes)))


#: One generation call over several charts: (charts, decoding) -> per chart, its text or the
#: exception that generation raised for it.
GenerateFn = Callable[[list[LabelledChart], dict[str, Any]], list["str | Exception"]]


def transcribe_with_retries(charts: list[LabelledChart], generate: GenerateFn,
                            decodings: list[dict[str, Any]], name: str) -> list[Transcription]:
    """Generate -> validate -> retry -> repair, for any Flow2Mermaid generator.

    Every chart is first generated with ``decodings[0]``; the charts whose output is not valid
    Mermaid over exactly their letters are generated again with the next decoding, and so on;
    a chart still invalid after the last one is repaired leniently from its first output. Used
    by `Qwen2VLTranscriber` (local model) and `flowpath.transcribe.served.ServedVLMTranscriber`
    (a chat endpoint), so both validate, retry and repair alike.

    Args:
        charts: the labelled charts.
        generate: one generation call over the still-unresolved charts (see `GenerateFn`).
        decodings: generation settings, tried in order.
        name: the transcriber's name, for ``meta``.

    Returns:
        One `Transcription` per chart, in order.
    """
    from flowpath.mermaid import to_mermaid

    t0 = time.perf_counter()
    done: dict[int, Transcription] = {}
    problems: dict[int, list[str]] = {i: [] for i in range(len(charts))}
    first: dict[int, str] = {}
    pending = list(range(len(charts)))
    for k, decoding in enumerate(decodings):
        if not pending:
            break
        outputs = generate([charts[i] for i in pending], decoding)
        still: list[int] = []
        for i, text in zip(pending, outputs, strict=True):
            if isinstance(text, Exception):  # generation itself failed: report, try the next setting
                problems[i].append(f"attempt {k + 1} ({_fmt(decoding)}): generation failed: {text}")
                still.append(i)
                continue
            first.setdefault(i, text)
            fc, reasons = validate_output(text, list(charts[i].regions))
            if fc is not None and not reasons:
                done[i] = Transcription(mermaid=to_mermaid(fc), chart=fc, problems=problems[i],
                                        meta={"transcriber": name, "attempts": k + 1,
                                              "seconds": round(time.perf_counter() - t0, 3)})
            else:
                problems[i].append(f"attempt {k + 1} ({_fmt(decoding)}): " + "; ".join(reasons))
                still.append(i)
        pending = still
    for i in pending:  # every attempt failed: repair the first output leniently
        raw = first.get(i, "")
        fc, notes = repair_output(raw, list(charts[i].regions))
        problems[i].extend(notes)
        done[i] = Transcription(mermaid=to_mermaid(fc), chart=fc, problems=problems[i],
                                meta={"transcriber": name, "attempts": len(decodings), "repaired": True,
                                      "raw": raw, "seconds": round(time.perf_counter() - t0, 3)})
    return [done[i] for i in range(len(charts))]


class CallBatcher:
    """Coalesces concurrent one-chart calls into batches.

    The pipeline transcribes one chart per call, from as many threads as ``--workers``. A
    caller that finds no batch running becomes the leader: it waits up to ``wait_s`` for other
    threads' charts (or until ``size`` are queued), runs them as one batch, hands each caller
    its results and repeats while charts are queued. The others block until theirs are done.

    Args:
        run: the batched function (items -> results, same length and order).
        size: largest batch.
        wait_s: how long a leader waits for a batch to fill.
    """

    def __init__(self, run: Callable[[list[Any]], list[Any]], size: int, wait_s: float = 0.05) -> None:
        self.run = run
        self.size = max(1, int(size))
        self.wait_s = wait_s
        self._cond = threading.Condition()
        self._queue: list[tuple[Any, dict[str, Any]]] = []
        self._leading = False

    def __call__(self, items: list[Any]) -> list[Any]:
        slots = [{} for _ in items]  # type: list[dict[str, Any]]
        with self._cond:
            self._queue.extend(zip(items, slots, strict=True))
            self._cond.notify_all()
            while not all("out" in s for s in slots):
                if not self._leading:
                    self._leading = True
                    break
                self._cond.wait()
            else:
                return self._unpack(slots)
        try:
            self._lead(slots)
        finally:
            with self._cond:
                self._leading = False
                self._cond.notify_all()
        return self._unpack(slots)

    def _lead(self, mine: list[dict[str, Any]]) -> None:
        deadline = time.monotonic() + self.wait_s
        while True:
            with self._cond:
                while len(self._queue) < self.size and time.monotonic() < deadline:
                    self._cond.wait(max(0.0, deadline - time.monotonic()))
                batch, self._queue = self._queue[:self.size], self._queue[self.size:]
            if not batch:
                return
            try:
                results = self.run([item for item, _ in batch])
                outs: list[dict[str, Any]] = [{"out": r} for r in results]
            except Exception as exc:  # hand every caller of this batch the failure
                outs = [{"out": None, "err": exc}] * len(batch)
            with self._cond:
                for (_, slot), out in zip(batch, outs, strict=True):
                    slot.update(out)
                self._cond.notify_all()
            if all("out" in s for s in mine) and not self._queue:
                return
            deadline = time.monotonic()

    @staticmethod
    def _unpack(slots: list[dict[str, Any]]) -> list[Any]:
        for s in slots:
            if "err" in s:
                raise s["err"]
        return [s["out"] for s in slots]


class Qwen2VLTranscriber(Transcriber):
    """Flow2Mermaid with Qwen2-VL: batched generate, validate, retry, repair.

    Charts are generated ``batch_size`` at a time (left-padded, SDPA attention), each with a
    token budget from its number of labelled nodes (`token_budget`); greedy outputs are the same
    as one chart at a time. Concurrent one-chart calls (``flowpath parse --workers N``) are
    gathered into batches too (`CallBatcher`).

    Args:
        base: directory of a ``Qwen2VLForConditionalGeneration`` checkpoint (or a merged one).
        adapter: optional directory of a peft LoRA adapter saved by
            ``training/train_flow2mermaid.py`` (its processor files are used when present).
        device: ``cpu``, ``cuda``, ``cuda:1``, ``auto``.
        dtype: torch dtype name (``float32``, ``bfloat16``); default float32 on CPU, bfloat16 on CUDA.
        max_new_tokens: the most new tokens per chart; each chart gets
            ``min(max_new_tokens, 32 + 48 * nodes)``.
        batch_size: charts per ``generate`` call.
        quantization: ``"4bit"`` (NF4) or ``"8bit"`` to load the weights with bitsandbytes (CUDA
            only), for 16-24 GB cards; ``None`` loads them in ``dtype``.
        min_pixels, max_pixels: image pixel budget (aspect ratio kept). Default: the budget of
            the processor saved with the adapter (or the base), i.e. the resolution the model was
            trained at; set them only to deliberately run at another resolution.
        decodings: generation settings tried in order (see `DEFAULT_DECODINGS`).
        prompt: the instruction; must match the one used in training.
        seed: torch seed set before each generation (sampling decodings).

    >>> tr = Qwen2VLTranscriber("ckpt/qwen2vl", adapter="runs/f2m/adapter", batch_size=8)  # doctest: +SKIP
    >>> [t.mermaid for t in tr(labelled_charts)]                                           # doctest: +SKIP
    """

    name = "qwen2vl"

    def __init__(self, base: str | Path, adapter: str | Path | None = None, *, device: str = "cpu",
                 dtype: str | None = None, max_new_tokens: int = 1024, batch_size: int = 1,
                 quantization: str | None = None, min_pixels: int | None = None,
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
        if int(batch_size) < 1:
            raise ValueError(f"Qwen2VLTranscriber: batch_size must be >= 1, got {batch_size}")
        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        self.device = device
        tdtype = getattr(torch, dtype) if dtype else (torch.bfloat16 if device.startswith("cuda") else torch.float32)
        load: dict[str, Any] = {"dtype": tdtype, "attn_implementation": "sdpa"}
        if quantization is not None:
            load.update(_quantized_load(quantization, device, tdtype))
        model: Any = Qwen2VLForConditionalGeneration.from_pretrained(str(base), **load)
        if adapter is not None:
            from flowpath.errors import require

            require("peft", "models", "Qwen2VLTranscriber adapters")
            from peft import PeftModel

            model = PeftModel.from_pretrained(model, str(adapter))
        # a bitsandbytes model is placed by from_pretrained (device_map) and cannot be moved
        self.model = (model if quantization is not None else model.to(device)).eval()
        proc_dir = Path(adapter) if adapter is not None and (Path(adapter) / "tokenizer_config.json").exists() else base
        self.processor = build_processor(proc_dir, min_pixels=min_pixels, max_pixels=max_pixels)
        # decoder-only batches pad on the left, so every row's next token follows its own prompt
        self.processor.tokenizer.padding_side = "left"
        self.max_new_tokens = int(max_new_tokens)
        self.batch_size = int(batch_size)
        self.decodings = [dict(d) for d in decodings] or [dict(DEFAULT_DECODINGS[0])]
        self.prompt = prompt
        self.seed = seed
        self._lock = threading.Lock()  # one generate at a time: a torch model is not thread-safe
        self._batcher = CallBatcher(self._transcribe, self.batch_size)

    def generate(self, image: Any, **decoding: Any) -> str:
        """One generation for one image with the full ``max_new_tokens``; returns the new text."""
        return self.generate_batch([image], [self.max_new_tokens], **decoding)[0]

    def generate_batch(self, images: list[Any], budgets: list[int], *, prompt: str | None = None,
                       **decoding: Any) -> list[str]:
        """One ``generate`` call over several images.

        Args:
            images: RGB arrays or PIL images.
            budgets: per image, its most new tokens; the call runs to the largest and each
                output is cut at its own budget (greedy decoding gives each row the same tokens
                as alone).
            prompt: the instruction (default: the transcriber's, as in training).
            **decoding: generation settings (``do_sample``, ``temperature``, ...).

        Returns:
            The decoded new text per image.
        """
        import torch
        from PIL import Image

        pils = [Image.fromarray(im) if not isinstance(im, Image.Image) else im for im in images]
        text = render_chat(self.processor, chat_messages(prompt or self.prompt), add_generation_prompt=True)
        inputs = self.processor(text=[text] * len(pils), images=pils, padding=True,
                                return_tensors="pt").to(self.device)
        tok = self.processor.tokenizer
        with self._lock, torch.inference_mode():
            torch.manual_seed(self.seed)
            out = self.model.generate(**inputs, max_new_tokens=max(budgets), pad_token_id=tok.pad_token_id,
                                      eos_token_id=tok.eos_token_id, **decoding)
        new = out[:, inputs["input_ids"].shape[1]:]
        return [tok.decode(row[:b], skip_special_tokens=True) for row, b in zip(new, budgets, strict=True)]

    def __call__(self, charts: list[LabelledChart]) -> list[Transcription]:
        if len(charts) == 1 and self.batch_size > 1:  # a pipeline thread's chart: batch across threads
            return self._batcher(charts)  # type: ignore[no-any-return]
        return self._transcribe(charts)

    def _transcribe(self, charts: list[LabelledChart]) -> list[Transcription]:
        return transcribe_with_retries(charts, self._generate_charts, self.decodings, self.name)

    def _generate_charts(self, charts: list[LabelledChart], decoding: dict[str, Any]) -> list[str | Exception]:
        # similar sizes share a batch: less padding, and a batch ends when its longest chart ends
        order = sorted(range(len(charts)), key=lambda i: len(charts[i].regions))
        out: list[str | Exception] = [""] * len(charts)
        for s in range(0, len(order), self.batch_size):
            idx = order[s:s + self.batch_size]
            budgets = [token_budget(len(charts[i].regions), self.max_new_tokens) for i in idx]
            try:
                texts: list[str | Exception] = list(self.generate_batch(
                    [charts[i].labelled_image for i in idx], budgets, **decoding))
            except Exception as exc:  # this batch failed; the caller records it per chart and retries
                logger.warning("Flow2Mermaid generation failed for %d charts: %s", len(idx), exc)
                texts = [exc] * len(idx)
            for i, t in zip(idx, texts, strict=True):
                out[i] = t
        return out


def _quantized_load(quantization: str, device: str, dtype: Any) -> dict[str, Any]:
    """``from_pretrained`` arguments for a bitsandbytes 4-/8-bit load (CUDA only)."""
    if quantization not in ("4bit", "8bit"):
        raise ValueError(f"Qwen2VLTranscriber: quantization must be '4bit', '8bit' or None, got {quantization!r}")
    if not device.startswith("cuda"):
        raise ValueError(f"Qwen2VLTranscriber: quantization={quantization!r} needs a CUDA device "
                         f"(bitsandbytes kernels); got device {device!r}. Load without quantization on CPU.")
    import importlib.util

    from flowpath.errors import MissingDependencyError

    if importlib.util.find_spec("bitsandbytes") is None:
        raise MissingDependencyError(f"Qwen2VLTranscriber quantization={quantization!r} needs the "
                                     "'bitsandbytes' package: pip install bitsandbytes")
    from transformers import BitsAndBytesConfig

    if quantization == "4bit":
        bnb = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_compute_dtype=dtype,
                                 bnb_4bit_use_double_quant=True)
    else:
        bnb = BitsAndBytesConfig(load_in_8bit=True)
    return {"quantization_config": bnb, "device_map": {"": device}}


def _fmt(decoding: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in decoding.items())
