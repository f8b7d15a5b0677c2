"""A small learned line recogniser (CRNN + CTC) for small, JPEG-compressed print (issue 14).

Tesseract's Debian ``eng.traineddata`` (tessdata_fast) misreads serif and Office faces drawn
at ~10 px and saved as JPEG (wild Graphviz node text). This module holds a ~1-2 M parameter
convolutional + bidirectional-LSTM recogniser trained with CTC on synthetic text lines rendered
in many Debian fonts, on plain and saturated fills, blurred and JPEG-compressed, and cleaned by
`flowpath.transcribe.ocr.crops.to_text_crop` exactly as node crops are
(``training/train_text_recogniser.py``; the shipped model's card is
``flowpath/resources/text_recogniser/README.md``).

`LineRecogniserEngine` reads cleaned crops behind the `OCREngine` interface: each crop is split
into lines at blank rows (`flowpath.transcribe.ocr.engines.split_lines`), every line is scaled
to the model's height and all lines of a batch go through the network at once. Each line comes
back as one `Word` with its box, as rapidocr's lines do, so `text.join_lines` orders them.
Lines are decoded greedily, and then the unknown words of each by the network's own posteriors
against a word list (`flowpath.transcribe.ocr.ctc_lexicon`, twelfth stretch).

torch is imported inside the functions that need it (``flowpath[models]``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np

from flowpath.transcribe.ocr.crops import TextCrop
from flowpath.transcribe.ocr.ctc_lexicon import SHIPPED, LexiconSetting, lexicon_decode
from flowpath.transcribe.ocr.engines import OCREngine, Reading, split_lines

if TYPE_CHECKING:
    from flowpath.transcribe.ocr.text import Word

#: the shipped model (weights, config and model card)
MODEL_DIR = Path(__file__).resolve().parents[2] / "resources" / "text_recogniser"
#: the grey-input variant (`RecogniserConfig.grey_input`): reads `crops.to_grey_crop` lines
GREY_MODEL_DIR = Path(__file__).resolve().parents[2] / "resources" / "text_recogniser_grey"
#: the blur specialist (grey input too): the grey model fine-tuned on the lines of blurred charts only,
#: read only on charts `grey_print.is_blurred` calls blurred (`OCRTranscriber(blur_model=...)`)
BLUR_MODEL_DIR = Path(__file__).resolve().parents[2] / "resources" / "text_recogniser_blur"
#: printable ASCII: what flowchart node text is written in; index 0 of the output is CTC's blank
CHARSET = "".join(chr(c) for c in range(32, 127))
#: rows of paper kept above and below a line band (training cuts its lines the same way)
LINE_PAD = 3


@dataclass
class RecogniserConfig:
    """Shape of the network; saved as ``config.json`` beside the weights.

    Attributes:
        height: input line height (px); lines are scaled to it keeping their aspect ratio.
        channels: output channels of the six 3x3 convolutions.
        hidden: LSTM hidden size per direction.
        layers: stacked bidirectional LSTM layers.
        charset: the characters, in output order after the blank.
        grey_input: trained on uncleaned grey lines (`crops.to_grey_crop`) instead of cleaned
            ones (`crops.to_text_crop`); same network, the input it expects differs.
    """

    height: int = 32
    channels: list[int] = field(default_factory=lambda: [16, 32, 64, 64, 96, 96])
    hidden: int = 96
    layers: int = 2
    charset: str = CHARSET
    grey_input: bool = False

    def __post_init__(self) -> None:
        if self.height % 16 or self.height < 16:
            raise ValueError(f"height must be a multiple of 16 (>= 16), got {self.height}")
        if len(self.channels) != 6:
            raise ValueError(f"channels needs 6 values (one per convolution), got {self.channels}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RecogniserConfig:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**known)


@lru_cache(maxsize=1)
def _model_class() -> Any:
    import torch
    from torch import nn

    class LineRecogniser(nn.Module):
        """Conv stack (height 32 -> 2) + BiLSTM over columns + per-column character logits.

        One output step per 4 input columns: a 32-px line's letters are 8-16 px wide, so each
        gets 2-4 steps (CTC needs one per character plus one between repeats).
        """

        def __init__(self, config: RecogniserConfig) -> None:
            super().__init__()
            c = config.channels
            pools = [(2, 2), (2, 2), None, (2, 1), None, (2, 1)]
            blocks: list[nn.Module] = []
            cin = 1
            for cout, pool in zip(c, pools, strict=True):
                blocks += [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]
                if pool:
                    blocks.append(nn.MaxPool2d(pool, pool))
                cin = cout
            self.conv = nn.Sequential(*blocks)
            rows = config.height // 16
            self.rnn = nn.LSTM(cin * rows, config.hidden, num_layers=config.layers, bidirectional=True,
                               batch_first=True, dropout=0.1 if config.layers > 1 else 0.0)
            self.head = nn.Linear(2 * config.hidden, len(config.charset) + 1)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            """``(B, 1, H, W)`` ink in [0, 1] -> ``(B, W // 4, classes)`` log-probabilities."""
            f = self.conv(x)
            b, ch, h, w = f.shape
            f = f.permute(0, 3, 1, 2).reshape(b, w, ch * h)
            f, _ = self.rnn(f)
            return torch.log_softmax(self.head(f), dim=-1)

    return LineRecogniser


def build_model(config: RecogniserConfig) -> Any:
    """A randomly initialised recogniser (a ``torch.nn.Module``) of the given shape."""
    return _model_class()(config)


def line_tensor(lines: Sequence[np.ndarray], height: int) -> tuple[Any, list[int]]:
    """Batch grey line images (``0`` ink, ``255`` paper) for the network.

    Each line is scaled to ``height`` keeping its aspect ratio, inverted to ink in [0, 1] and
    right-padded with paper to the widest.

    Returns:
        ``(tensor (B, 1, height, W), output steps per line)``.
    """
    import torch

    scaled = []
    for img in lines:
        h, w = img.shape
        nw = max(8, int(round(w * height / max(h, 1))))
        interp = cv2.INTER_AREA if h > height else cv2.INTER_LINEAR
        scaled.append(cv2.resize(img, (nw, height), interpolation=interp))
    width = int(math.ceil(max(s.shape[1] for s in scaled) / 4) * 4)
    batch = np.zeros((len(scaled), 1, height, width), np.float32)
    for i, s in enumerate(scaled):
        batch[i, 0, :, :s.shape[1]] = 1.0 - s.astype(np.float32) / 255.0
    return torch.from_numpy(batch), [s.shape[1] // 4 for s in scaled]


def decode(log_probs: Any, steps: Sequence[int], charset: str) -> list[tuple[str, float]]:
    """Greedy CTC decoding: best class per step, repeats merged, blanks dropped.

    Returns:
        ``(text, confidence)`` per line; the confidence is the mean probability of the
        characters kept (0 for an empty line).
    """
    probs, best = log_probs.exp().max(dim=-1)
    out = []
    for b, n in enumerate(steps):
        ids = best[b, :n].tolist()
        ps = probs[b, :n].tolist()
        chars: list[str] = []
        conf: list[float] = []
        prev = 0
        for k, p in zip(ids, ps, strict=True):
            if k != 0 and k != prev:
                chars.append(charset[k - 1])
                conf.append(p)
            prev = k
        out.append(("".join(chars), float(np.mean(conf)) if conf else 0.0))
    return out


def crop_lines(image: np.ndarray) -> list[tuple[int, int, np.ndarray]]:
    """The text lines of a cleaned crop as ``(y0, y1, line image)``, each with `LINE_PAD` rows
    of paper above and below (cut at the crop's edge)."""
    out = []
    for y0, y1 in split_lines(image):
        a, b = max(0, y0 - LINE_PAD), min(image.shape[0], y1 + LINE_PAD)
        band = image[a:b]
        cols = np.flatnonzero((band < 128).any(axis=0))
        if cols.size:
            band = band[:, max(0, cols[0] - 2 * LINE_PAD):cols[-1] + 2 * LINE_PAD + 1]
        out.append((y0, y1, band))
    return out


def load_recogniser(model_dir: str | Path = MODEL_DIR) -> tuple[Any, RecogniserConfig]:
    """The recogniser saved in ``model_dir`` (``config.json`` + ``model.safetensors``), in eval mode.

    Raises:
        FileNotFoundError: either file is missing (the message names it).
    """
    from safetensors.torch import load_file

    model_dir = Path(model_dir)
    for name in ("config.json", "model.safetensors"):
        if not (model_dir / name).is_file():
            raise FileNotFoundError(f"text recogniser: {model_dir / name} is missing")
    config = RecogniserConfig.from_dict(json.loads((model_dir / "config.json").read_text(encoding="utf-8")))
    model = build_model(config)
    model.load_state_dict(load_file(str(model_dir / "model.safetensors")))
    model.eval()
    return model, config


def save_recogniser(model: Any, config: RecogniserConfig, model_dir: str | Path) -> None:
    """Write ``model`` as `load_recogniser` reads it: ``model.safetensors`` and ``config.json``
    in ``model_dir`` (created if missing)."""
    from safetensors.torch import save_file

    model_dir = Path(model_dir)
    model_dir.mkdir(parents=True, exist_ok=True)
    save_file({k: v.contiguous() for k, v in model.state_dict().items()}, str(model_dir / "model.safetensors"))
    (model_dir / "config.json").write_text(json.dumps(config.to_dict(), indent=1) + "\n", encoding="utf-8")


class LineRecogniserEngine(OCREngine):
    """The learned line recogniser behind the `OCREngine` interface.

    Args:
        model_dir: folder with ``config.json`` and ``model.safetensors`` (default: the shipped
            model).
        model: an already built model (tests: a random-init one); ``config`` must come with it.
        config: the model's shape.
        threads: torch intra-op threads while reading (torch's own setting is restored after).
        lexicon: lexicon-aware decoding of unknown words (`ctc_lexicon.LexiconSetting`; the
            default `ctc_lexicon.SHIPPED`); None: greedy decoding alone.

    Raises:
        MissingDependencyError: torch or safetensors is missing (``flowpath[models]``).
    """

    name = "textrec"

    def __init__(self, model_dir: str | Path = MODEL_DIR, *, model: Any = None,
                 config: RecogniserConfig | None = None, threads: int = 1,
                 lexicon: LexiconSetting | None = SHIPPED) -> None:
        from flowpath.errors import require

        require("torch", "models", "LineRecogniserEngine")
        require("safetensors", "models", "LineRecogniserEngine")
        if model is None:
            model, config = load_recogniser(model_dir)
        elif config is None:
            raise ValueError("LineRecogniserEngine: a model passed in needs its config")
        self.model = model.eval()
        self.config: RecogniserConfig = config  # type: ignore[assignment]
        if self.config.grey_input:  # its readings are told apart in ``meta["node_engines"]``
            self.name = "greyrec"
        self.threads = max(1, int(threads))
        self.lexicon = lexicon

    def read_lines(self, lines: Sequence[np.ndarray]) -> list[tuple[str, float]]:
        """``(text, confidence)`` of each grey line image (``0`` ink, ``255`` paper): greedy
        decoding, then (with ``lexicon``) unknown words replaced by a dictionary word the
        network finds about as likely (`ctc_lexicon.lexicon_decode`). The confidence is the
        greedy path's either way (the choice rules, `choice.prefer_learned`, were tuned on it)."""
        import torch

        if not lines:
            return []
        # the decoding's ctc_loss too: on a busy 2-core machine a second intra-op thread made
        # its small batches ~7x dearer in CPU time
        before = torch.get_num_threads()
        torch.set_num_threads(self.threads)
        try:
            log_probs, steps = self.posteriors(lines)
            greedy = decode(log_probs, steps, self.config.charset)
            if self.lexicon is None:
                return greedy
            texts = lexicon_decode(log_probs, steps, [t for t, _ in greedy], self.config.charset, self.lexicon)
        finally:
            torch.set_num_threads(before)
        return [(t, c) for t, (_, c) in zip(texts, greedy, strict=True)]

    def posteriors(self, lines: Sequence[np.ndarray]) -> tuple[Any, list[int]]:
        """The network's ``(B, T, classes)`` log-probabilities for a batch of line images, and
        the valid output steps of each line (run under `read_lines`' thread setting)."""
        import torch

        x, steps = line_tensor(lines, self.config.height)
        with torch.inference_mode():
            out = self.model(x)
        return out, steps

    def read(self, crops: Sequence[TextCrop | None]) -> list[Reading]:
        per_crop = [[] if c is None else crop_lines(c.image) for c in crops]
        texts = iter(self.read_lines([band for lines in per_crop for _, _, band in lines]))
        out = []
        for lines in per_crop:
            words: list[Word] = []
            confs: list[float] = []
            for y0, y1, _band in lines:
                text, conf = next(texts)
                text = text.strip()
                if text:
                    words.append((y0, 0, y1 - y0, text))
                    confs.append(conf)
            out.append(Reading(words, float(np.mean(confs)) if confs else 0.0, self.name))
        return out
