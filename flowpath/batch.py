"""Folder-scale runs behind ``flowpath attribute`` and ``flowpath parse``.

Output layout of `run_attribute` (``OUT_DIR``)::

    results.jsonl            one line per question: {"id", "image", "question", "answer",
                             "node_ids", "letters", "regions" (bbox, polygon, score; the
                             masks are in the parse JSON), "path_edges", "reason", "trace",
                             "timings", "error", "problems", "overlay", ...extra question keys}
    parses/<image>.json      the image's ParsedChart (graph, Mermaid, regions, problems, timings)
    parses/<image>.mmd       the transcribed Mermaid
    parses/<image>.labelled.png   the letter-labelled image
    overlays/<id>.png        attributed regions + path drawn on the original image
    summary.json             counts, failures, mean timings, components
    report.html              gallery of overlays with question, answer, nodes and reason

``<image>`` and ``<id>`` are `output_name` of the image path (suffix included) and of the
question id: percent-encoded, so distinct inputs never share a file and the name reads back with
`urllib.parse.unquote`; a name over 120 bytes is cut and ends in ``~`` + a hash.

Every file is written atomically (temp file + rename). A rerun reads ``results.jsonl`` and skips
questions already answered without error (and reuses a saved parse only when the image's content
hash still matches), so an interrupted run resumes; failed questions are retried. A bad image or
question becomes a record with ``error`` set and the run goes on. One run at a time per
``OUT_DIR`` (a lock file), and a run refuses an ``OUT_DIR`` holding answers to a different
questions file rather than deleting them.

Images are local files, or URIs read through pyarrow filesystems (``s3://``, ``gs://``,
``file://``; `read_image`): the images folder may be one (``s3://bucket/charts``).

The unit of work is `attribute_image` (one image and its questions in, one record per question
out; ``run_attribute`` maps it over the images with threads) and `parse_image` for ``run_parse``:
another engine can map the same functions over its own workers.
"""

from __future__ import annotations

import codecs
import hashlib
import json
import logging
import os
import re
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from flowpath.errors import FlowPathError, ImageLoadError, InputError, require
from flowpath.io import MAX_PIXELS, atomic_write_text, load_image, save_image
from flowpath.pipeline import FlowPath, ParsedChart, image_hash

logger = logging.getLogger("flowpath.batch")

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp", ".bmp", ".gif", ".tif", ".tiff")

#: record keys the run writes itself: a question's extra keys never override them (an extra
#: ``"overlay": "javascript:..."`` must not become a link in report.html)
RUN_KEYS = frozenset({
    "id", "image", "question", "answer", "node_ids", "letters", "regions", "path_edges", "reason",
    "trace", "timings", "error", "problems", "image_hash", "source", "width", "height", "overlay",
    "parse"})

#: longest file name `output_name` returns, in bytes (file systems allow 255)
MAX_NAME_BYTES = 120

LOCK_NAME = ".flowpath.lock"

#: ``scheme://`` at the start of an image reference: a URI read through pyarrow filesystems
#: (``s3://``, ``gs://``, ``hdfs://``, ``file://``...), not a path on this machine
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]+://")

#: an image as a run refers to it: a local file, or a pyarrow-filesystem URI (a ``str``;
#: `pathlib.Path` would fold ``s3://b`` into ``s3:/b``)
ImageRef = Path | str

__all__ = ["IMAGE_SUFFIXES", "AttributeJob", "ImageMapper", "ImageRef", "ParseMapper",
           "QuestionItem", "attribute_image", "failed_record", "image_root", "is_uri",
           "list_images", "load_questions", "output_name", "parse_image", "question_item",
           "read_image", "read_questions", "read_results", "run_attribute", "run_parse"]


@dataclass
class QuestionItem:
    """One line of ``questions.jsonl``: ``{"id", "image", "question", "answer", ...}``.

    ``image`` is a path relative to the images folder (or to the questions file's folder, as in
    the benchmark layout where it reads ``charts/<chart>.png``). Other keys are kept in
    ``extra`` and copied into the result record (except the keys the run writes, `RUN_KEYS`).
    """

    id: str
    image: str
    question: str
    answer: str
    extra: dict[str, Any] = field(default_factory=dict)
    error: str | None = None


def _lines(raw: bytes) -> Iterator[tuple[int, bytes]]:
    """JSONL lines split on ``\n`` only: ``str.splitlines`` would also split on U+2028/U+2029/
    U+0085, which JSON allows raw inside strings."""
    if raw.startswith(codecs.BOM_UTF8):
        raw = raw[len(codecs.BOM_UTF8):]
    for lineno, line in enumerate(raw.split(b"\n"), 1):
        yield lineno, line.rstrip(b"\r")


def read_questions(path: str | Path) -> list[QuestionItem]:
    """Read a questions JSONL file (UTF-8, a BOM allowed); a bad line (bad JSON, bad UTF-8, a
    missing field) becomes an item with ``error`` set, and the other lines are read as usual.

    Raises:
        FileNotFoundError: the file does not exist.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: questions file not found")
    items: list[QuestionItem] = []
    seen: set[str] = set()
    for lineno, raw in _lines(path.read_bytes()):
        if not raw.strip():
            continue
        where = f"{path.name}:{lineno}"
        try:
            d = json.loads(raw.decode("utf-8"))
            if not isinstance(d, dict):
                raise ValueError(f"expected a JSON object, got {type(d).__name__}")
        except UnicodeDecodeError as exc:
            items.append(QuestionItem(id=f"line{lineno}", image="", question="", answer="",
                                      error=f"{where}: not UTF-8 text ({exc.reason} at byte "
                                            f"{exc.start})"))
            continue
        except ValueError as exc:
            items.append(QuestionItem(id=f"line{lineno}", image="", question="", answer="",
                                      error=f"{where}: bad JSON ({exc})"))
            continue
        items.append(question_item(d, where, f"line{lineno}", seen))
    return items


def question_item(d: dict[str, Any], where: str, default_id: str, seen: set[str]) -> QuestionItem:
    """One question record (a JSONL line, a table row or a dict) as a `QuestionItem`.

    A bad record (no image, no question text, no answer text) becomes an item with ``error``
    set, never an exception.

    Args:
        d: the record.
        where: how messages name it (``questions.jsonl:3``).
        default_id: its id when ``d`` has none.
        seen: ids given so far in this run; a repeated id gets ``@default_id`` appended.
    """
    qid = str(d.get("id") or default_id)
    if qid in seen:
        qid = f"{qid}@{default_id}"
    seen.add(qid)
    # benchmark-layout questions without "image" name their chart: charts/<chart>.png
    image = d.get("image") or (f"charts/{d['chart']}.png" if d.get("chart") else "")
    ignored = sorted(k for k in d if k in RUN_KEYS and k not in ("id", "image", "question", "answer"))
    if ignored:
        logger.warning("%s: ignoring keys the run writes itself: %s", where, ", ".join(ignored))
    item = QuestionItem(id=qid, image=str(image), question=d.get("question"),  # type: ignore[arg-type]
                        answer=d.get("answer"),  # type: ignore[arg-type]
                        extra={k: v for k, v in d.items() if k not in RUN_KEYS})
    problems = []
    if not item.image:
        problems.append("no 'image'")
    if not isinstance(item.question, str) or not item.question.strip():
        problems.append("no 'question' text")
    if not isinstance(item.answer, str):
        problems.append("no 'answer' text")
    if problems:
        item.error = f"{where}: bad question record ({'; '.join(problems)})"
        item.question = item.question if isinstance(item.question, str) else ""
        item.answer = item.answer if isinstance(item.answer, str) else ""
    return item


def load_questions(questions: str | Path | Iterable[dict[str, Any]],
                   ) -> tuple[list[QuestionItem], Path | None]:
    """The questions of a run and the folder their file is in (None for dicts): a questions
    JSONL path (`read_questions`) or the question dicts themselves (`question_item`)."""
    if isinstance(questions, (str, Path)):
        return read_questions(questions), Path(questions).parent
    seen: set[str] = set()
    return [question_item(dict(d), f"question {i}", f"q{i}", seen)
            for i, d in enumerate(questions, 1)], None


def is_uri(ref: str | os.PathLike[str]) -> bool:
    """Whether an image reference is a URI (``s3://bucket/a.png``) rather than a local path.

    >>> is_uri("s3://charts/a.png"), is_uri("file:///data/a.png"), is_uri("charts/a.png")
    (True, True, False)
    """
    return isinstance(ref, str) and _URI.match(ref) is not None


def image_root(images: str | os.PathLike[str]) -> ImageRef:
    """The images argument of a run: a local `Path`, or a URI kept as text."""
    return images if isinstance(images, str) and is_uri(images) else Path(images)


def _uri_join(folder: str, rel: str) -> str:
    return (folder if folder.endswith("/") else folder + "/") + rel


def _open_uri(uri: str) -> tuple[Any, str]:
    """``(pyarrow filesystem, path in it)`` for a URI, or `ImageLoadError` naming it."""
    require("pyarrow", "ray", f"reading {uri}")
    import pyarrow.fs

    try:
        # from_uri picks the filesystem by scheme; credentials, region and endpoint come from
        # the environment as for any AWS/GCS client (AWS_ACCESS_KEY_ID, AWS_ENDPOINT_URL, ...)
        return pyarrow.fs.FileSystem.from_uri(uri)
    except (ValueError, OSError) as exc:  # pyarrow.ArrowInvalid is a ValueError
        raise ImageLoadError(f"{uri}: not a location pyarrow can read ({exc})") from None


def _read_uri(uri: str, max_pixels: int | None) -> bytes:
    """The bytes of the object at ``uri``, or `ImageLoadError` naming it."""
    import pyarrow.fs

    fs, path = _open_uri(uri)
    # an encoded image is far smaller than 8 bytes per pixel (16-bit RGBA, uncompressed): a
    # larger object is refused before it is downloaded
    max_bytes = 8 * (max_pixels or MAX_PIXELS)
    try:
        info = fs.get_file_info(path)
        if info.type == pyarrow.fs.FileType.NotFound:
            raise ImageLoadError(f"{uri}: no such file or object")
        if info.type == pyarrow.fs.FileType.Directory:
            raise ImageLoadError(f"{uri}: is a directory, not an image")
        if info.size is not None and info.size > max_bytes:
            raise ImageLoadError(f"{uri}: {info.size} bytes is too large for an image of at most "
                                 f"{(max_pixels or MAX_PIXELS) / 1e6:g} Mpx (--max-pixels)")
        with fs.open_input_stream(path) as f:
            return bytes(f.read())
    except ImageLoadError:
        raise
    except (OSError, ValueError) as exc:  # network, permission, bucket errors from pyarrow
        raise ImageLoadError(f"{uri}: cannot read ({exc})") from None


def read_image(ref: ImageRef, *, max_pixels: int | None = None) -> np.ndarray:
    """The decoded image a run refers to, from this machine's files or from a URI.

    The one place both engines read question images: a URI (``s3://``, ``gs://``,
    ``file://``, any pyarrow filesystem) is read through `pyarrow.fs.FileSystem.from_uri`.

    Raises:
        flowpath.errors.ImageLoadError: the image is missing, unreadable, corrupt or too large;
            the message names ``ref``.
    """
    if is_uri(ref):
        uri = str(ref)
        return load_image(_read_uri(uri, max_pixels), name=uri, max_pixels=max_pixels)
    return load_image(ref, max_pixels=max_pixels)


def _pipeline_input(ref: ImageRef, max_pixels: int | None) -> Path | np.ndarray:
    """What `FlowPath.parse` gets for an image: a local file as its path (the pipeline reads
    and times it), a URI already read and decoded."""
    return ref if isinstance(ref, Path) else read_image(ref, max_pixels=max_pixels)


def _list_uri_images(folder: str) -> list[tuple[str, str]]:
    """``(path under folder, URI)`` of the image objects under a URI folder, sorted."""
    import pyarrow.fs

    fs, base = _open_uri(folder)
    try:
        infos = fs.get_file_info(pyarrow.fs.FileSelector(base, recursive=True))
    except (OSError, ValueError) as exc:
        raise FileNotFoundError(f"{folder}: cannot list the images folder ({exc})") from None
    prefix = base.rstrip("/") + "/"
    rels = sorted(i.path[len(prefix):] for i in infos
                  if i.type == pyarrow.fs.FileType.File and i.path.startswith(prefix)
                  and i.extension.lower() in {s.lstrip(".") for s in IMAGE_SUFFIXES}
                  and not i.base_name.startswith("."))
    return [(rel, _uri_join(folder, rel)) for rel in rels]


def _image_files(images: ImageRef) -> list[tuple[str, ImageRef]]:
    """``(name as written in outputs, image)`` of every image `run_parse` handles."""
    if isinstance(images, str):
        return list(_list_uri_images(images))
    base = images if images.is_dir() else images.parent
    return [(p.relative_to(base).as_posix(), p) for p in list_images(images)]


def list_images(root: str | Path) -> list[Path]:
    """Image files under ``root`` (recursively, sorted); ``root`` may be a single image file."""
    root = Path(root)
    if root.is_file():
        return [root]
    if not root.is_dir():
        raise FileNotFoundError(f"{root}: no such file or directory")
    return sorted(p for p in root.rglob("*") if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES
                  and not p.name.startswith("."))


def output_name(key: str) -> str:
    """A file name for an image path or question id, distinct for distinct keys.

    Percent-encoding keeps every character that could clash (``/``, space, ``%``, a leading
    dot) out of the name and reads back with `urllib.parse.unquote`; a name longer than
    `MAX_NAME_BYTES` is cut and made unique by ``~`` + a hash of the whole key (``~`` is
    encoded everywhere else, so a cut name never equals an uncut one).

    >>> output_name("a/b.png"), output_name("a b.png"), output_name("tea.jpg")
    ('a%2Fb.png', 'a%20b.png', 'tea.jpg')
    """
    name = urllib.parse.quote(key, safe="", errors="surrogatepass").replace("~", "%7E")
    if name.startswith("."):
        name = "%2E" + name[1:]
    if not name or len(name) > MAX_NAME_BYTES:
        digest = hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()
        name = f"{name[:MAX_NAME_BYTES - 17]}~{digest}"
    return name


def _inside(path: Path, root: Path) -> bool:
    try:
        return path.resolve().is_relative_to(root.resolve())
    except (OSError, RuntimeError):  # a symlink loop: not a usable image either way
        return False


def _failure_text(exc: BaseException) -> str:
    """The one place a caught failure becomes a record's ``error`` text."""
    if isinstance(exc, FlowPathError):
        return str(exc)  # our own errors already name the input and what is wrong
    if isinstance(exc, OSError) and exc.strerror:
        return f"{exc.filename}: {exc.strerror}" if exc.filename else exc.strerror
    return f"{type(exc).__name__}: {exc}"


def read_results(path: Path) -> dict[str, dict[str, Any]]:
    """Previous results by id; a torn last line (killed mid-write) is ignored."""
    out: dict[str, dict[str, Any]] = {}
    if not path.exists():
        return out
    for _, line in _lines(path.read_bytes()):
        try:
            d = json.loads(line.decode("utf-8"))
        except ValueError:  # includes UnicodeDecodeError
            continue
        if isinstance(d, dict) and "id" in d:
            out[str(d["id"])] = d
    return out


class _ParseStore:
    """Per-image parse files under ``OUT_DIR/parses``: write after parsing, reuse on resume."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def paths(self, name: str) -> tuple[Path, Path, Path]:
        return (self.root / f"{name}.json", self.root / f"{name}.mmd",
                self.root / f"{name}.labelled.png")

    def load(self, name: str, image_path: ImageRef,
             max_pixels: int | None = None) -> ParsedChart | None:
        """The saved parse of ``image_path``, or None if there is none or the image's content
        changed since (another image saved under this name, or the file was replaced)."""
        jpath, _, lpath = self.paths(name)
        if not jpath.exists():
            return None
        try:
            d = json.loads(jpath.read_text(encoding="utf-8"))
            if d.get("error"):
                return None
            image = read_image(image_path, max_pixels=max_pixels)
            if d.get("image_hash") != image_hash(image):
                return None
            labelled = load_image(lpath, max_pixels=max_pixels) if lpath.exists() else None
            return ParsedChart.from_dict(d, image=image, labelled_image=labelled)
        except (ValueError, OSError) as exc:
            logger.warning("ignoring unreadable previous parse %s (%s)", jpath, exc)
            return None

    def save(self, name: str, parsed: ParsedChart) -> None:
        jpath, mpath, lpath = self.paths(name)
        if parsed.labelled_image is not None:
            save_image(parsed.labelled_image, lpath)
        atomic_write_text(mpath, parsed.mermaid.rstrip() + "\n")
        atomic_write_text(jpath, json.dumps(parsed.to_dict(), indent=1) + "\n")

    def save_error(self, name: str, source: str, error: str) -> None:
        try:
            atomic_write_text(self.paths(name)[0],
                              json.dumps({"source": source, "error": error}, indent=1) + "\n")
        except OSError as exc:  # the error is in results.jsonl either way
            logger.warning("could not write the error file for %s: %s", source, exc)


@contextmanager
def _run_lock(out: Path) -> Iterator[None]:
    """Hold ``OUT_DIR/.flowpath.lock`` for the run: a second run into the same folder is refused
    instead of redoing (and overwriting) the same work. An OS file lock, so a killed run leaves
    no stale lock behind."""
    from filelock import FileLock, Timeout

    lock = FileLock(out / LOCK_NAME, timeout=0)
    try:
        lock.acquire()
    except Timeout:
        raise InputError(f"{out}: another flowpath run is writing to this folder "
                         f"({out / LOCK_NAME} is locked); wait for it or use another --out") from None
    try:
        yield
    finally:
        lock.release()


def _progress(total: int, desc: str, enabled: bool) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="q" if desc == "attribute" else "img",
                disable=not enabled, dynamic_ncols=True)


@dataclass
class AttributeJob:
    """Where one `run_attribute` reads and writes: what `attribute_image` needs besides the
    pipeline, the image and its questions.

    Attributes:
        out: the output folder.
        images: the images folder, or one image file (then every question is about it), or
            a URI folder (``s3://bucket/charts``) that relative image paths are read under.
        questions_dir: the questions file's folder, also searched for images.
        overlays: write ``overlays/<id>.png``.
        allow_outside_images: read ``image`` paths that resolve outside the images folder
            (and the questions folder): ``../``, absolute paths, symlinks that lead out.
    """

    out: Path
    images: ImageRef
    questions_dir: Path | None = None
    overlays: bool = True
    allow_outside_images: bool = False

    @property
    def store(self) -> _ParseStore:
        return _ParseStore(self.out / "parses")

    def locate(self, rel: str) -> ImageRef:
        """The image a question names: a local file, or a URI (read by `read_image`).

        A URI is read when it lies under a URI images folder, or with ``allow_outside_images``;
        a relative path under a URI images folder becomes a URI there.

        Raises:
            InputError: the path leaves the images folder (unless allowed), cannot be looked up
                (e.g. too long), or no such image exists. The message names ``rel``.
        """
        leaves = InputError(f"{rel}: image path leaves the images folder {self.images}; pass "
                            "--allow-outside-images (allow_outside_images=True) to read it")
        if is_uri(rel):
            inside = isinstance(self.images, str) and rel.startswith(_uri_join(self.images, ""))
            if not self.allow_outside_images and (not inside or "/../" in rel):
                raise leaves
            return rel
        normal = os.path.normpath(rel)
        if not self.allow_outside_images and (
                os.path.isabs(rel) or normal == os.pardir or normal.startswith(os.pardir + os.sep)):
            raise leaves  # decided on the text alone: says nothing about what exists outside
        if isinstance(self.images, str):  # a URI folder; an absolute path (allowed) is local
            return Path(rel) if os.path.isabs(rel) else _uri_join(self.images, Path(rel).as_posix())
        if self.images.is_file():
            return self.images
        roots = [self.images] + ([self.questions_dir] if self.questions_dir else [])
        cands = [(root / rel, root) for root in roots] + [(self.images / Path(rel).name, self.images)]
        for c, root in cands:
            try:
                found = c.is_file()
            except OSError as exc:
                raise InputError(f"{rel}: cannot look up the image ({exc.strerror})") from None
            if found:
                if not self.allow_outside_images and not _inside(c, root):
                    raise leaves  # a symlink (or symlinked folder) that leads out
                return c
        where = " or ".join(str(r) for r in roots)
        raise InputError(f"{rel}: image not found under {where}")


def _base_record(it: QuestionItem) -> dict[str, Any]:
    return {**it.extra, "id": it.id, "image": it.image}


def failed_record(it: QuestionItem, error: str) -> dict[str, Any]:
    return {**_base_record(it), "question": it.question, "answer": it.answer, "node_ids": [],
            "letters": [], "regions": [], "error": error}


def _answer(fp: FlowPath, job: AttributeJob, parsed: ParsedChart, parse_file: str,
            it: QuestionItem) -> dict[str, Any]:
    """One question about a parsed chart -> its record (overlay written)."""
    att = fp.attribute(parsed, it.question, it.answer)
    rec = {**_base_record(it), **att.to_dict()}
    for reg in rec["regions"]:  # pixel masks stay in the parse JSON, once per chart
        reg.pop("mask", None)
    rec["parse"] = parse_file
    if job.overlays and att.error is None:
        rel_overlay = f"overlays/{output_name(it.id)}.png"
        try:
            att.save_overlay(job.out / rel_overlay)
            rec["overlay"] = rel_overlay
        except (OSError, FlowPathError) as exc:
            rec["error"] = f"overlay failed: {_failure_text(exc)}"
    return rec


def attribute_image(fp: FlowPath, job: AttributeJob, rel: str, items: list[QuestionItem], *,
                    on_record: Callable[[dict[str, Any]], None] | None = None,
                    ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The batch's unit of work: one image and its questions in, one record per question out.

    Parses the image (or reuses its saved parse when the image content is unchanged), writes
    ``parses/<image>.*``, answers every question on that one parse and writes the overlays.
    Never raises for a bad image or question: the failure is the record's ``error`` (this is
    where the batch catches, once per image and once per question). Holds one parsed chart, so
    memory does not grow with the number of images.

    Args:
        fp: the pipeline.
        job: the run's folders and options.
        rel: the image path as the questions name it.
        items: the questions about that image.
        on_record: called with each record as soon as it is made (`run_attribute` appends it
            to results.jsonl there, so an interrupted run loses at most the question in hand).

    Returns:
        ``(records, image_stat)``: the results.jsonl records in ``items`` order, and the image's
        row of ``summary["images"]``.
    """
    name = output_name(rel)
    store = job.store
    stat: dict[str, Any] = {"image": rel, "questions": len(items)}
    parsed: ParsedChart | None = None
    err: str | None = None
    path: ImageRef | None = None
    try:
        path = job.locate(rel)
        parsed = store.load(name, path, fp.max_pixels)
        if parsed is not None:
            stat["parse"] = "resumed"
        else:
            parsed = fp.parse(_pipeline_input(path, fp.max_pixels), source=str(path), cache=False)
            stat["parse"] = "parsed"
            stat["parse_seconds"] = parsed.timings.get("total", 0.0)
            store.save(name, parsed)
        stat["nodes"] = len(parsed.regions)
        stat["problems"] = list(parsed.problems)
    except Exception as exc:  # noqa: BLE001 - the batch's one guard per image: record, go on
        err = _failure_text(exc)
        if not isinstance(exc, (FlowPathError, OSError)):
            logger.exception("image %s failed with an unexpected error", rel)
        logger.warning("image %s failed: %s", rel, err)
        parsed = None
        if path is not None:
            store.save_error(name, str(path), err)
    stat["error"] = err
    records = []
    for it in items:
        if parsed is None:
            rec = failed_record(it, err or "image not parsed")
        else:
            try:
                rec = _answer(fp, job, parsed, f"parses/{name}.json", it)
            except Exception as exc:  # noqa: BLE001 - the batch's one guard per question
                logger.exception("question %s failed with an unexpected error", it.id)
                rec = failed_record(it, _failure_text(exc))
            if rec.get("error"):
                logger.warning("question %s failed: %s", it.id, rec["error"])
        records.append(rec)
        if on_record is not None:
            on_record(rec)
    return records, stat


def _check_same_questions(previous: dict[str, dict[str, Any]], items: list[QuestionItem],
                          out: Path) -> None:
    """Refuse to drop answers of another questions file that used the same ``OUT_DIR``."""
    current = {it.id: it for it in items}
    for qid, rec in previous.items():
        if rec.get("error"):
            continue  # failed work is retried or dropped; nothing is lost
        it = current.get(qid)
        if it is None or (rec.get("image"), rec.get("question"), rec.get("answer")) != (
                it.image, it.question, it.answer):
            what = "is not in this questions file" if it is None else "asks something else here"
            raise InputError(
                f"{out} holds answers from a different questions file (question id {qid!r} "
                f"{what}); use another --out, or delete {out / 'results.jsonl'} to start over")


#: Another engine's map of `attribute_image` over the images (`flowpath.distributed`):
#: ``(job, groups, emit)`` where ``groups`` maps each image path to its pending questions and
#: ``emit`` journals one record; returns each image's ``summary["images"]`` row by path and
#: the pipeline's `FlowPath.describe`. `run_attribute` keeps reading, resuming and summarising.
ImageMapper = Callable[[AttributeJob, dict[str, list[QuestionItem]],
                        Callable[[dict[str, Any]], None]],
                       tuple[dict[str, dict[str, Any]], dict[str, str] | None]]

#: Another engine's map of `parse_image`: ``(out, todo, emit)`` with ``todo`` the
#: ``(image path as named, file)`` pairs to parse and ``emit`` taking each summary row;
#: returns the pipeline's `FlowPath.describe`.
ParseMapper = Callable[[Path, list[tuple[str, ImageRef]], Callable[[dict[str, Any]], None]],
                       dict[str, str] | None]


def run_attribute(pipeline: FlowPath | Callable[[], FlowPath], images: str | Path,
                  out_dir: str | Path, *, questions: str | Path | Iterable[dict[str, Any]],
                  workers: int = 1, overlays: bool = True, report: bool = True,
                  progress: bool = True, allow_outside_images: bool = False,
                  map_images: ImageMapper | None = None) -> dict[str, Any]:
    """Attribute every question of a questions file; write results, overlays, summary, report.

    Args:
        pipeline: a `FlowPath`, or a zero-argument factory (called only if there is work left,
            so a fully resumed run loads no model).
        images: the images folder (question ``image`` paths are relative to it), or one image,
            or a URI folder (``s3://bucket/charts``; see `read_image`). A question's ``image``
            may itself be a URI (under that folder, or anywhere with ``allow_outside_images``).
        out_dir: output folder (created; an existing one from the same questions is resumed).
        questions: a questions JSONL path, or the question dicts themselves.
        workers: threads, each working through whole images (questions of one image share
            its parse).
        overlays: write ``overlays/<id>.png``.
        report: write ``report.html``.
        progress: show a tqdm progress bar.
        allow_outside_images: read question images outside the images (and questions) folder.
        map_images: run the images on another engine instead of ``workers`` threads (then
            ``pipeline`` is unused here: the engine builds its own).

    Returns:
        The summary dict (also written to ``summary.json``); ``summary["failed"]`` counts the
        questions with an error.

    Raises:
        FileNotFoundError: no such images folder or questions file.
        flowpath.errors.InputError: ``out_dir`` is in use by another run, or holds answers to a
            different questions file.

    >>> s = run_attribute(FlowPath.default(), "examples/charts", "out/demo",
    ...                   questions="examples/questions.jsonl")  # doctest: +SKIP
    >>> s["questions"], s["failed"]                              # doctest: +SKIP
    (6, 0)
    """
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    t_start = time.perf_counter()
    root = image_root(images)
    out = Path(out_dir)
    items, qdir = load_questions(questions)
    # a URI folder is not listed up front: a wrong one is each question's recorded error
    if isinstance(root, Path) and not root.exists():
        raise FileNotFoundError(f"{root}: no such images folder or file")
    out.mkdir(parents=True, exist_ok=True)
    job = AttributeJob(out=out, images=root, questions_dir=qdir, overlays=overlays,
                       allow_outside_images=allow_outside_images)
    with _run_lock(out):
        return _run_attribute(pipeline, job, items, workers=workers, report=report,
                              progress=progress, t_start=t_start, map_images=map_images)


def _run_attribute(pipeline: FlowPath | Callable[[], FlowPath], job: AttributeJob,
                   items: list[QuestionItem], *, workers: int, report: bool, progress: bool,
                   t_start: float, map_images: ImageMapper | None = None) -> dict[str, Any]:
    out = job.out
    results_path = out / "results.jsonl"
    previous = read_results(results_path)
    _check_same_questions(previous, items, out)
    done = {qid: r for qid, r in previous.items() if not r.get("error")
            and (not job.overlays or not r.get("overlay") or (out / r["overlay"]).exists())}
    pending = [it for it in items if it.id not in done]
    records: dict[str, dict[str, Any]] = dict(done)
    lock = threading.Lock()
    bar = _progress(len(items), "attribute", progress)
    bar.update(len(items) - len(pending))
    # keep finished work: rewrite the file with only the good previous records, then append
    atomic_write_text(results_path, "".join(json.dumps(done[i.id]) + "\n"
                                            for i in items if i.id in done))
    fh = results_path.open("a", encoding="utf-8")
    image_stats: dict[str, dict[str, Any]] = {}

    def emit(rec: dict[str, Any]) -> None:
        with lock:
            records[rec["id"]] = rec
            fh.write(json.dumps(rec) + "\n")
            fh.flush()
            bar.update(1)

    groups: dict[str, list[QuestionItem]] = {}
    for it in pending:
        if it.error:
            emit(failed_record(it, it.error))
        else:
            groups.setdefault(it.image, []).append(it)

    components: dict[str, str] | None = None
    if map_images is not None:
        try:
            if groups:
                image_stats, components = map_images(job, groups, emit)
        finally:
            fh.close()
            bar.close()
        return _finish_attribute(job, items, records, image_stats, len(items) - len(pending),
                                 t_start, components, report)

    # built before the loop (and only when there is work): a bad component name or a missing
    # checkpoint is a usage error for the whole run, not a per-image failure
    fp = (pipeline if isinstance(pipeline, FlowPath) else pipeline()) if groups else None

    def work(rel: str, group: list[QuestionItem]) -> None:
        assert fp is not None
        _, stat = attribute_image(fp, job, rel, group, on_record=emit)
        with lock:
            image_stats[rel] = stat

    try:
        if workers == 1 or len(groups) <= 1:
            for rel, group in groups.items():
                work(rel, group)
        else:
            with ThreadPoolExecutor(max_workers=workers) as ex:
                for f in [ex.submit(work, rel, g) for rel, g in groups.items()]:
                    f.result()
    finally:
        fh.close()
        bar.close()
    return _finish_attribute(job, items, records, image_stats, len(items) - len(pending),
                             t_start, fp.describe() if fp else None, report)


def _finish_attribute(job: AttributeJob, items: list[QuestionItem],
                      records: dict[str, dict[str, Any]], image_stats: dict[str, dict[str, Any]],
                      resumed: int, t_start: float, components: dict[str, str] | None,
                      report: bool) -> dict[str, Any]:
    """Rewrite results.jsonl in questions order; write summary.json and report.html."""
    out = job.out
    ordered = [records[it.id] for it in items if it.id in records]
    atomic_write_text(out / "results.jsonl", "".join(json.dumps(r) + "\n" for r in ordered))
    summary = _summarise(ordered, image_stats, resumed, time.perf_counter() - t_start, components)
    atomic_write_text(out / "summary.json", json.dumps(summary, indent=1) + "\n")
    if report:
        from flowpath.report import write_report

        write_report(out / "report.html", ordered, summary)
    return summary


def _mean(xs: list[float]) -> float | None:
    return round(sum(xs) / len(xs), 4) if xs else None


def _summarise(records: list[dict[str, Any]], image_stats: dict[str, dict[str, Any]],
               resumed: int, wall: float, components: dict[str, str] | None) -> dict[str, Any]:
    failed = [r for r in records if r.get("error")]
    parse_times = [s["parse_seconds"] for s in image_stats.values() if "parse_seconds" in s]
    reason_times = [r["timings"]["reason"] for r in records
                    if not r.get("error") and "reason" in (r.get("timings") or {})]
    return {
        "questions": len(records),
        "ok": len(records) - len(failed),
        "failed": len(failed),
        "resumed": resumed,
        "images_this_run": len(image_stats),
        "images_failed": sorted(rel for rel, s in image_stats.items() if s.get("error")),
        "errors": [{"id": r["id"], "image": r.get("image"), "error": r["error"]} for r in failed],
        "mean_parse_seconds_per_chart": _mean(parse_times),
        "mean_reason_seconds_per_question": _mean(reason_times),
        "wall_seconds": round(wall, 3),
        "components": components,
        "images": list(image_stats.values()),
    }


def _saved_parse(jpath: Path, image: ImageRef, max_pixels: int | None) -> dict[str, Any] | None:
    """The parse dict in ``jpath`` if it is a good parse of ``image`` as it is now (same
    content hash), else None."""
    try:
        prev = json.loads(jpath.read_text(encoding="utf-8"))
        if (isinstance(prev, dict) and not prev.get("error")
                and prev.get("image_hash") == image_hash(read_image(image, max_pixels=max_pixels))):
            return prev
    except (ValueError, OSError):
        pass
    return None


def parse_image(fp: FlowPath, out: Path, rel: str, path: ImageRef) -> dict[str, Any]:
    """`run_parse`'s unit of work: one image in, its parse files and its summary row out.

    Never raises for a bad image: the row's ``error`` says what failed and
    ``OUT_DIR/<image>.json`` holds ``{"error": ...}`` (retried on the next run).
    """
    name = output_name(rel)
    store = _ParseStore(out)
    try:
        parsed = fp.parse(_pipeline_input(path, fp.max_pixels), source=str(path), cache=False)
        store.save(name, parsed)
        return {"image": rel, "status": "parsed", "error": None, "nodes": len(parsed.regions),
                "edges": len(parsed.graph.edges), "problems": parsed.problems,
                "seconds": round(parsed.timings.get("total", 0.0), 4)}
    except Exception as exc:  # noqa: BLE001 - the batch's one guard per image: record, go on
        err = _failure_text(exc)
        if not isinstance(exc, (FlowPathError, OSError)):
            logger.exception("image %s failed with an unexpected error", rel)
        logger.warning("image %s failed: %s", rel, err)
        store.save_error(name, str(path), err)
        return {"image": rel, "status": "failed", "error": err}


def run_parse(pipeline: FlowPath | Callable[[], FlowPath], images: str | Path,
              out_dir: str | Path, *, workers: int = 1, progress: bool = True,
              map_parses: ParseMapper | None = None) -> dict[str, Any]:
    """Parse every image under ``images``: graph JSON + Mermaid + labelled image per image.

    Writes ``OUT_DIR/<image>.json`` (the `ParsedChart`), ``<image>.mmd``,
    ``<image>.labelled.png`` (``<image>`` is `output_name` of the path under ``images``) and
    ``summary.json``. Images whose JSON holds a parse of the same image content are skipped
    (resume); a bad image gets ``<image>.json`` with ``{"error": ...}`` and is retried on the
    next run. ``images`` may be a URI folder (``s3://bucket/charts``): its image objects are
    listed and read through pyarrow filesystems (`read_image`). ``map_parses`` runs the images
    on another engine instead of ``workers`` threads.

    Returns:
        The summary dict; ``summary["failed"]`` counts failed images.

    Raises:
        flowpath.errors.InputError: another run is writing to ``out_dir``.
    """
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    t_start = time.perf_counter()
    files = _image_files(image_root(images))
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    with _run_lock(out):
        return _run_parse(pipeline, files, out, workers=workers, progress=progress,
                          t_start=t_start, map_parses=map_parses)


def _run_parse(pipeline: FlowPath | Callable[[], FlowPath], files: list[tuple[str, ImageRef]],
               out: Path, *, workers: int, progress: bool, t_start: float,
               map_parses: ParseMapper | None = None) -> dict[str, Any]:
    store = _ParseStore(out)
    lock = threading.Lock()
    rows: dict[str, dict[str, Any]] = {}
    todo = []
    fp: FlowPath | None = pipeline if isinstance(pipeline, FlowPath) else None
    for rel, p in files:
        jpath = store.paths(output_name(rel))[0]
        prev = _saved_parse(jpath, p, fp.max_pixels if fp else None) if jpath.exists() else None
        if prev is not None:
            rows[rel] = {"image": rel, "status": "resumed", "error": None,
                         "nodes": len(prev.get("regions", {}))}
        else:
            todo.append((rel, p))
    bar = _progress(len(files), "parse", progress)
    bar.update(len(files) - len(todo))
    components: dict[str, str] | None = None

    def emit(row: dict[str, Any]) -> None:
        with lock:
            rows[row["image"]] = row
            bar.update(1)

    try:
        if map_parses is not None:
            fp = None  # the engine builds its own pipelines
            if todo:
                components = map_parses(out, todo, emit)
        elif todo:
            fp = fp if fp is not None else pipeline()  # type: ignore[operator]

            def work(rel: str, p: ImageRef) -> None:
                assert fp is not None
                emit(parse_image(fp, out, rel, p))

            if workers == 1:
                for rel, p in todo:
                    work(rel, p)
            else:
                with ThreadPoolExecutor(max_workers=workers) as ex:
                    for f in [ex.submit(work, rel, p) for rel, p in todo]:
                        f.result()
    finally:
        bar.close()
    ordered = [rows[rel] for rel, _ in files]
    failed = [r for r in ordered if r.get("error")]
    summary = {"images": len(ordered), "ok": len(ordered) - len(failed), "failed": len(failed),
               "resumed": len(files) - len(todo),
               "errors": [{"image": r["image"], "error": r["error"]} for r in failed],
               "mean_parse_seconds": _mean([r["seconds"] for r in ordered if "seconds" in r]),
               "wall_seconds": round(time.perf_counter() - t_start, 3),
               "components": fp.describe() if fp else components, "rows": ordered}
    atomic_write_text(out / "summary.json", json.dumps(summary, indent=1) + "\n")
    return summary
