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

Every file is written atomically (temp file + rename). A rerun reads ``results.jsonl`` and skips
questions already answered without error (and images already parsed), so an interrupted run
resumes; failed questions are retried. A bad image or question becomes a record with ``error``
set and the run goes on.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flowpath.io import atomic_write_text, load_image, save_image
from flowpath.pipeline import Attribution, FlowPath, ParsedChart

logger = logging.getLogger("flowpath.batch")

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp", ".bmp", ".gif", ".tif", ".tiff")

__all__ = ["IMAGE_SUFFIXES", "QuestionItem", "list_images", "read_questions", "run_attribute",
           "run_parse"]


@dataclass
class QuestionItem:
    """One line of ``questions.jsonl``: ``{"id", "image", "question", "answer", ...}``.

    ``image`` is a path relative to the images folder (or to the questions file's folder, as in
    the benchmark layout where it reads ``charts/<chart>.png``). Other keys are kept in
    ``extra`` and copied into the result record.
    """

    id: str
    image: str
    question: str
    answer: str
    extra: dict[str, Any] = field(default_factory=dict)
    error: str | None = None


def read_questions(path: str | Path) -> list[QuestionItem]:
    """Read a questions JSONL file; a bad line becomes an item with ``error`` set.

    Raises:
        FileNotFoundError: the file does not exist.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: questions file not found")
    items: list[QuestionItem] = []
    seen: set[str] = set()
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            d = json.loads(line)
            if not isinstance(d, dict):
                raise ValueError(f"expected a JSON object, got {type(d).__name__}")
        except ValueError as exc:
            items.append(QuestionItem(id=f"line{lineno}", image="", question="", answer="",
                                      error=f"{path.name}:{lineno}: bad JSON ({exc})"))
            continue
        items.append(_question_item(d, f"{path.name}:{lineno}", f"line{lineno}", seen))
    return items


def _question_item(d: dict[str, Any], where: str, default_id: str, seen: set[str]) -> QuestionItem:
    qid = str(d.get("id") or default_id)
    if qid in seen:
        qid = f"{qid}@{default_id}"
    seen.add(qid)
    # benchmark-layout questions without "image" name their chart: charts/<chart>.png
    image = d.get("image") or (f"charts/{d['chart']}.png" if d.get("chart") else "")
    item = QuestionItem(id=qid, image=str(image), question=d.get("question"),  # type: ignore[arg-type]
                        answer=d.get("answer"),  # type: ignore[arg-type]
                        extra={k: v for k, v in d.items()
                               if k not in ("id", "image", "question", "answer")})
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


def list_images(root: str | Path) -> list[Path]:
    """Image files under ``root`` (recursively, sorted); ``root`` may be a single image file."""
    root = Path(root)
    if root.is_file():
        return [root]
    if not root.is_dir():
        raise FileNotFoundError(f"{root}: no such file or directory")
    return sorted(p for p in root.rglob("*") if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES
                  and not p.name.startswith("."))


def _safe_name(rel: str) -> str:
    stem = rel.rsplit(".", 1)[0] if "." in Path(rel).name else rel
    return re.sub(r"[^A-Za-z0-9._-]+", "__", stem.strip("/")) or "image"


def _resolve_image(rel: str, images_dir: Path, questions_dir: Path | None) -> Path | None:
    cands = [images_dir / rel]
    if questions_dir is not None:
        cands.append(questions_dir / rel)
    cands.append(images_dir / Path(rel).name)
    for c in cands:
        if c.is_file():
            return c
    return None


def _read_results(path: Path) -> dict[str, dict[str, Any]]:
    """Previous results by id; a torn last line (killed mid-write) is ignored."""
    out: dict[str, dict[str, Any]] = {}
    if not path.exists():
        return out
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            d = json.loads(line)
        except ValueError:
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

    def load(self, name: str, image_path: Path) -> ParsedChart | None:
        jpath, _, lpath = self.paths(name)
        if not jpath.exists():
            return None
        try:
            d = json.loads(jpath.read_text(encoding="utf-8"))
            if d.get("error"):
                return None
            image = load_image(image_path)
            labelled = load_image(lpath) if lpath.exists() else None
            parsed = ParsedChart.from_dict(d, image=image, labelled_image=labelled)
        except (ValueError, OSError) as exc:
            logger.warning("ignoring unreadable previous parse %s (%s)", jpath, exc)
            return None
        if (parsed.height, parsed.width) != image.shape[:2]:
            return None  # the image changed since: parse again
        return parsed

    def save(self, name: str, parsed: ParsedChart) -> None:
        jpath, mpath, lpath = self.paths(name)
        if parsed.labelled_image is not None:
            save_image(parsed.labelled_image, lpath)
        atomic_write_text(mpath, parsed.mermaid.rstrip() + "\n")
        atomic_write_text(jpath, json.dumps(parsed.to_dict(), indent=1) + "\n")

    def save_error(self, name: str, source: str, error: str) -> None:
        atomic_write_text(self.paths(name)[0],
                          json.dumps({"source": source, "error": error}, indent=1) + "\n")


def _error_text(exc: BaseException) -> str:
    # our own errors already name the input; others get their type for context
    from flowpath.errors import FlowPathError

    return str(exc) if isinstance(exc, FlowPathError) else f"{type(exc).__name__}: {exc}"


def _progress(total: int, desc: str, enabled: bool) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="q" if desc == "attribute" else "img",
                disable=not enabled, dynamic_ncols=True)


def run_attribute(pipeline: FlowPath | Callable[[], FlowPath], images: str | Path,
                  out_dir: str | Path, *, questions: str | Path | Iterable[dict[str, Any]],
                  workers: int = 1, overlays: bool = True, report: bool = True,
                  progress: bool = True) -> dict[str, Any]:
    """Attribute every question of a questions file; write results, overlays, summary, report.

    Args:
        pipeline: a `FlowPath`, or a zero-argument factory (called only if there is work left,
            so a fully resumed run loads no model).
        images: the images folder (question ``image`` paths are relative to it), or one image.
        out_dir: output folder (created; an existing one is resumed).
        questions: a questions JSONL path, or the question dicts themselves.
        workers: threads, each working through whole images (questions of one image share
            its parse).
        overlays: write ``overlays/<id>.png``.
        report: write ``report.html``.
        progress: show a tqdm progress bar.

    Returns:
        The summary dict (also written to ``summary.json``); ``summary["failed"]`` counts the
        questions with an error.

    >>> s = run_attribute(FlowPath.default(), "examples/charts", "out/demo",
    ...                   questions="examples/questions.jsonl")  # doctest: +SKIP
    >>> s["questions"], s["failed"]                              # doctest: +SKIP
    (6, 0)
    """
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    t_start = time.perf_counter()
    images = Path(images)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if isinstance(questions, (str, Path)):
        items = read_questions(questions)
        qdir: Path | None = Path(questions).parent
    else:
        seen: set[str] = set()
        items = [_question_item(dict(d), f"question {i}", f"q{i}", seen)
                 for i, d in enumerate(questions, 1)]
        qdir = None
    images_dir = images if images.is_dir() else images.parent
    if not images.exists():
        raise FileNotFoundError(f"{images}: no such images folder or file")

    results_path = out / "results.jsonl"
    previous = _read_results(results_path)
    done = {qid: r for qid, r in previous.items() if not r.get("error")
            and (not overlays or not r.get("overlay") or (out / r["overlay"]).exists())}
    pending = [it for it in items if it.id not in done]
    records: dict[str, dict[str, Any]] = dict(done)
    lock = threading.Lock()
    bar = _progress(len(items), "attribute", progress)
    bar.update(len(items) - len(pending))
    # keep finished work: rewrite the file with only the good previous records, then append
    atomic_write_text(results_path, "".join(json.dumps(done[i.id]) + "\n"
                                            for i in items if i.id in done))
    fh = results_path.open("a", encoding="utf-8")
    store = _ParseStore(out / "parses")
    image_stats: dict[str, dict[str, Any]] = {}

    def emit(rec: dict[str, Any]) -> None:
        with lock:
            records[rec["id"]] = rec
            fh.write(json.dumps(rec) + "\n")
            fh.flush()
            bar.update(1)

    def base_record(it: QuestionItem) -> dict[str, Any]:
        return {"id": it.id, "image": it.image, **it.extra}

    groups: dict[str, list[QuestionItem]] = {}
    for it in pending:
        if it.error:
            emit({**base_record(it), "question": it.question, "answer": it.answer,
                  "node_ids": [], "letters": [], "regions": [], "error": it.error})
            continue
        groups.setdefault(it.image, []).append(it)

    fp_holder: list[FlowPath] = []

    def get_fp() -> FlowPath:
        with lock:
            if not fp_holder:
                fp_holder.append(pipeline if isinstance(pipeline, FlowPath) else pipeline())
            return fp_holder[0]

    def work(rel: str, group: list[QuestionItem]) -> None:
        path = _resolve_image(rel, images_dir, qdir) if images.is_dir() else images
        name = _safe_name(rel)
        stat: dict[str, Any] = {"image": rel, "questions": len(group)}
        parsed: ParsedChart | None = None
        if path is None:
            err = f"{rel}: image not found under {images_dir}" + (f" or {qdir}" if qdir else "")
        else:
            err = None
            try:
                fp = get_fp()
                parsed = store.load(name, path)
                if parsed is not None:
                    stat["parse"] = "resumed"
                    fp.cache_parsed(parsed)
                else:
                    parsed = fp.parse(path)
                    stat["parse"] = "parsed"
                    stat["parse_seconds"] = parsed.timings.get("total", 0.0)
                    store.save(name, parsed)
                stat["nodes"] = len(parsed.regions)
                stat["problems"] = list(parsed.problems)
            except Exception as exc:  # a bad image must not stop the batch
                err = _error_text(exc)
                logger.warning("image %s failed: %s", rel, err)
                store.save_error(name, str(path), err)
        stat["error"] = err
        with lock:
            image_stats[rel] = stat
        for it in group:
            rec = base_record(it)
            if parsed is None:
                emit({**rec, "question": it.question, "answer": it.answer, "node_ids": [],
                      "letters": [], "regions": [], "error": err})
                continue
            try:
                att = get_fp().attribute(parsed, it.question, it.answer)
            except Exception as exc:
                att = Attribution(question=it.question, answer=it.answer, error=_error_text(exc),
                                  source=parsed.source, image_hash=parsed.image_hash)
            rec.update(att.to_dict())
            for reg in rec["regions"]:  # pixel masks stay in the parse JSON, once per chart
                reg.pop("mask", None)
            rec["parse"] = f"parses/{name}.json"
            if overlays and att.error is None:
                rel_overlay = f"overlays/{_safe_name(it.id)}.png"
                try:
                    att.save_overlay(out / rel_overlay)
                    rec["overlay"] = rel_overlay
                except Exception as exc:
                    rec["error"] = f"overlay failed: {_error_text(exc)}"
            if att.error:
                logger.warning("question %s failed: %s", it.id, att.error)
            emit(rec)

    if groups:
        # built before the loop (and only when there is work): a bad component name or a
        # missing checkpoint is a usage error for the whole run, not a per-image failure
        get_fp()
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

    ordered = [records[it.id] for it in items if it.id in records]
    atomic_write_text(results_path, "".join(json.dumps(r) + "\n" for r in ordered))
    summary = _summarise(ordered, image_stats, len(items) - len(pending), time.perf_counter() - t_start,
                         fp_holder[0].describe() if fp_holder else None)
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


def run_parse(pipeline: FlowPath | Callable[[], FlowPath], images: str | Path,
              out_dir: str | Path, *, workers: int = 1, progress: bool = True) -> dict[str, Any]:
    """Parse every image under ``images``: graph JSON + Mermaid + labelled image per image.

    Writes ``OUT_DIR/<image>.json`` (the `ParsedChart`), ``<image>.mmd``,
    ``<image>.labelled.png`` and ``summary.json``. Images whose JSON exists are skipped (resume);
    a bad image gets ``<image>.json`` with ``{"error": ...}`` and is retried on the next run.

    Returns:
        The summary dict; ``summary["failed"]`` counts failed images.
    """
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    t_start = time.perf_counter()
    root = Path(images)
    paths = list_images(root)
    base = root if root.is_dir() else root.parent
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    store = _ParseStore(out)
    lock = threading.Lock()
    rows: dict[str, dict[str, Any]] = {}
    todo = []
    for p in paths:
        rel = p.relative_to(base).as_posix()
        jpath = store.paths(_safe_name(rel))[0]
        prev = None
        if jpath.exists():
            try:
                prev = json.loads(jpath.read_text(encoding="utf-8"))
            except ValueError:
                prev = None
        if prev and not prev.get("error"):
            rows[rel] = {"image": rel, "status": "resumed", "error": None,
                         "nodes": len(prev.get("regions", {}))}
        else:
            todo.append((rel, p))
    bar = _progress(len(paths), "parse", progress)
    bar.update(len(paths) - len(todo))
    fp_holder: list[FlowPath] = []

    def work(rel: str, p: Path) -> None:
        name = _safe_name(rel)
        try:
            with lock:
                if not fp_holder:
                    fp_holder.append(pipeline if isinstance(pipeline, FlowPath) else pipeline())
            parsed = fp_holder[0].parse(p)
            store.save(name, parsed)
            row = {"image": rel, "status": "parsed", "error": None, "nodes": len(parsed.regions),
                   "edges": len(parsed.graph.edges), "problems": parsed.problems,
                   "seconds": round(parsed.timings.get("total", 0.0), 4)}
            fp_holder[0].clear_cache()  # parse-only: nothing asks about this image again
        except Exception as exc:
            err = _error_text(exc)
            logger.warning("image %s failed: %s", rel, err)
            store.save_error(name, str(p), err)
            row = {"image": rel, "status": "failed", "error": err}
        with lock:
            rows[rel] = row
            bar.update(1)

    if todo and not fp_holder:
        fp_holder.append(pipeline if isinstance(pipeline, FlowPath) else pipeline())
    try:
        if workers == 1:
            for rel, p in todo:
                work(rel, p)
        else:
            with ThreadPoolExecutor(max_workers=workers) as ex:
                for f in [ex.submit(work, rel, p) for rel, p in todo]:
                    f.result()
    finally:
        bar.close()
    ordered = [rows[p.relative_to(base).as_posix()] for p in paths]
    failed = [r for r in ordered if r.get("error")]
    summary = {"images": len(ordered), "ok": len(ordered) - len(failed), "failed": len(failed),
               "resumed": len(paths) - len(todo),
               "errors": [{"image": r["image"], "error": r["error"]} for r in failed],
               "mean_parse_seconds": _mean([r["seconds"] for r in ordered if "seconds" in r]),
               "wall_seconds": round(time.perf_counter() - t_start, 3),
               "components": fp_holder[0].describe() if fp_holder else None, "rows": ordered}
    atomic_write_text(out / "summary.json", json.dumps(summary, indent=1) + "\n")
    return summary
