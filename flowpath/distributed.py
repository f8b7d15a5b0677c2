"""Batch attribution and parsing on Ray Data: ``flowpath attribute/parse --engine ray``.

The unit of work is the local engine's (`flowpath.batch.attribute_image`,
`flowpath.batch.parse_image`): Ray Data maps it over a pool of actors, each of which builds one
`FlowPath` in ``__init__`` and reuses it for every image it gets (the callable-class pattern of
Ray Data's batch-inference guide). Everything around the unit of work stays in
`flowpath.batch`: reading questions, the run lock, resuming, the results.jsonl journal, the
summary and the report, so the two engines write the same files and the same records.

One row of the Ray dataset is one image with its questions (``batch_size=1``: an image is the
smallest piece of work, so a slow chart never holds others back). The driver appends each
image's records to ``results.jsonl`` as its row comes back, exactly as the local engine does
per question: a job killed mid-way loses only the images in flight and a rerun redoes them.
Actors write parses and overlays straight into ``OUT_DIR``, so on several machines ``OUT_DIR``
must be on a filesystem every node sees (NFS or similar); the images too, or in object storage
(``s3://`` and other pyarrow filesystem URIs, read by each actor with
`flowpath.batch.read_image`). A crashed actor is
restarted and its image retried (Ray Data's defaults for actor pools); a bad image or
question is a recorded error, as locally, never a failed task.

Needs the ``ray`` extra (``pip install 'flowpath[ray]'``); nothing else in flowpath imports
this module, so the local engine never loads Ray.

>>> from flowpath.distributed import run_attribute_ray  # doctest: +SKIP
>>> run_attribute_ray(lambda: FlowPath.default(), "charts", "out",
...                   questions="questions.jsonl", actors=2)["failed"]  # doctest: +SKIP
0
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flowpath.batch import (  # the local engine's unit of work and run loop, reused as is
    AttributeJob,
    ImageMapper,
    ImageRef,
    ParseMapper,
    QuestionItem,
    attribute_image,
    failed_record,
    image_root,
    is_uri,
    load_questions,
    parse_image,
    read_results,
    run_attribute,
    run_parse,
)
from flowpath.errors import require
from flowpath.pipeline import FlowPath

if TYPE_CHECKING:
    from ray.data import Dataset

logger = logging.getLogger("flowpath.distributed")

__all__ = ["ActorPool", "attribute_dataset", "connect", "read_question_table",
           "run_attribute_ray", "run_parse_ray"]

#: a pipeline, or a zero-argument factory that each actor calls once (prefer a factory: a
#: built pipeline is pickled to every actor, and some components do not pickle)
PipelineSource = FlowPath | Callable[[], FlowPath]

#: question table formats read with Ray's readers (``.jsonl`` goes through
#: `flowpath.batch.read_questions`, which records a bad line instead of failing the read)
TABLE_SUFFIXES = (".parquet",)

#: most input blocks of a run (see `_blocks`)
MAX_BLOCKS = 10_000


def _require_ray() -> None:
    require("ray", "ray", "--engine ray")
    require("pyarrow", "ray", "--engine ray")


@dataclass(frozen=True)
class ActorPool:
    """The Ray Data actor pool that runs the pipeline.

    Attributes:
        actors: a fixed pool size, or ``(min, max)`` for a pool Ray Data grows and shrinks.
        cpus_per_actor: CPUs Ray reserves for each actor.
        gpus_per_actor: GPUs Ray reserves for each actor (learned segmenter, transcriber or VLM
            reasoner on the GPU; the pipeline should then be built with ``device="cuda"``).
    """

    actors: int | tuple[int, int] = 1
    cpus_per_actor: float = 1.0
    gpus_per_actor: float = 0.0

    def __post_init__(self) -> None:
        sizes = self.actors if isinstance(self.actors, tuple) else (self.actors, self.actors)
        if len(sizes) != 2 or sizes[0] < 1 or sizes[1] < sizes[0]:
            raise ValueError(f"actors must be N >= 1 or (min, max) with 1 <= min <= max, "
                             f"got {self.actors!r}")
        if self.cpus_per_actor < 0 or self.gpus_per_actor < 0:
            raise ValueError(f"cpus/gpus per actor must be >= 0, got {self.cpus_per_actor}, "
                             f"{self.gpus_per_actor}")

    def map_args(self) -> dict[str, Any]:
        """Keyword arguments for `ray.data.Dataset.map_batches`."""
        # Crashed actors are restarted and their task retried: Ray Data's actor pools default
        # to max_restarts=-1 and max_task_retries=-1 (ray/data/_internal/execution/operators/
        # actor_pool_map_operator.py), and passing them again is deprecated since Ray 2.5x;
        # test_crashed_actor_is_restarted_and_its_image_retried holds Ray to it.
        from ray.data import ActorPoolStrategy

        # `compute` replaces the `concurrency` argument, deprecated since Ray 2.51
        pool = (ActorPoolStrategy(min_size=self.actors[0], max_size=self.actors[1])
                if isinstance(self.actors, tuple) else ActorPoolStrategy(size=self.actors))
        args: dict[str, Any] = {"batch_size": 1, "compute": pool, "num_cpus": self.cpus_per_actor}
        if self.gpus_per_actor:
            args["num_gpus"] = self.gpus_per_actor
        return args


def _local_pythonpath() -> str:
    """PYTHONPATH for a cluster this process starts: its workers import the same flowpath (and
    the same modules a pickled factory refers to) as this process."""
    here = str(Path(__file__).resolve().parents[1])
    parts = [here, *os.environ.get("PYTHONPATH", "").split(os.pathsep)]
    return os.pathsep.join(dict.fromkeys(p for p in parts if p))


def connect(address: str | None = None, *, progress: bool = False) -> bool:
    """Connect this process to Ray unless it already is.

    Args:
        address: ``None`` starts a local cluster on this machine, ``"auto"`` joins the cluster
            ``ray start`` runs here, ``"ray://host:10001"`` or ``"host:6379"`` a remote one.
        progress: show Ray Data's progress bars.

    Returns:
        True when this call started or joined Ray (the caller shuts it down when done).
    """
    _require_ray()
    import ray
    from ray.data import DataContext

    DataContext.get_current().enable_progress_bars = progress
    if ray.is_initialized():
        return False
    if address is None:
        ray.init(include_dashboard=False, logging_level=logging.WARNING,
                 runtime_env={"env_vars": {"PYTHONPATH": _local_pythonpath()}})
    else:
        ray.init(address=address, logging_level=logging.WARNING)
    return True


@contextmanager
def _session(address: str | None, progress: bool) -> Iterator[None]:
    import ray

    started = connect(address, progress=progress)
    try:
        yield
    finally:
        if started:
            ray.shutdown()


class _PipelineActor:
    """A Ray Data actor holding one `FlowPath`, built once when the actor starts."""

    def __init__(self, pipeline: PipelineSource) -> None:
        self.fp = pipeline if isinstance(pipeline, FlowPath) else pipeline()
        self.components = json.dumps(self.fp.describe())


class _Attributor(_PipelineActor):
    """`attribute_image` on each image row it is given."""

    def __init__(self, pipeline: PipelineSource, job: AttributeJob) -> None:
        super().__init__(pipeline)
        self.job = job

    def __call__(self, batch: dict[str, Any]) -> dict[str, list[str]]:
        rows: dict[str, list[str]] = {"image": [], "records": [], "stat": [], "components": []}
        for rel, items in zip(batch["image"], batch["items"], strict=True):
            group = [QuestionItem(**d) for d in json.loads(items)]
            records, stat = attribute_image(self.fp, self.job, str(rel), group)
            rows["image"].append(str(rel))
            rows["records"].append(json.dumps(records))
            rows["stat"].append(json.dumps(stat))
            rows["components"].append(self.components)
        return rows


class _Parser(_PipelineActor):
    """`parse_image` on each image row it is given."""

    def __init__(self, pipeline: PipelineSource, out: Path) -> None:
        super().__init__(pipeline)
        self.out = out

    def __call__(self, batch: dict[str, Any]) -> dict[str, list[str]]:
        rows: dict[str, list[str]] = {"row": [], "components": []}
        for rel, path in zip(batch["image"], batch["path"], strict=True):
            ref: ImageRef = str(path) if is_uri(str(path)) else Path(path)
            rows["row"].append(json.dumps(parse_image(self.fp, self.out, str(rel), ref)))
            rows["components"].append(self.components)
        return rows


def _blocks(n: int) -> int:
    """Input blocks for ``n`` images: an actor task takes a whole block, so one image per block
    spreads the work evenly over the pool (capped: a block is an object in Ray's store)."""
    return max(1, min(n, MAX_BLOCKS))


def _image_rows(pipeline: PipelineSource, job: AttributeJob,
                groups: dict[str, list[QuestionItem]], pool: ActorPool) -> Dataset:
    """One row per image (``image``, ``records``, ``stat``, ``components``; JSON text), lazy."""
    import ray.data

    ds = ray.data.from_items(
        [{"image": rel, "items": json.dumps([asdict(it) for it in group])}
         for rel, group in groups.items()],
        override_num_blocks=_blocks(len(groups)))
    return ds.map_batches(_Attributor, fn_constructor_args=(pipeline, job), **pool.map_args())


def _image_mapper(pipeline: PipelineSource, pool: ActorPool) -> ImageMapper:
    def run(job: AttributeJob, groups: dict[str, list[QuestionItem]],
            emit: Callable[[dict[str, Any]], None],
            ) -> tuple[dict[str, dict[str, Any]], dict[str, str] | None]:
        stats: dict[str, dict[str, Any]] = {}
        components = None
        for row in _image_rows(pipeline, job, groups, pool).iter_rows():
            for rec in json.loads(row["records"]):
                emit(rec)
            stats[row["image"]] = json.loads(row["stat"])
            components = components or json.loads(row["components"])
        return stats, components
    return run


def _parse_mapper(pipeline: PipelineSource, pool: ActorPool) -> ParseMapper:
    def run(out: Path, todo: list[tuple[str, ImageRef]],
            emit: Callable[[dict[str, Any]], None]) -> dict[str, str] | None:
        import ray.data

        ds = ray.data.from_items([{"image": rel, "path": str(p)} for rel, p in todo],
                                 override_num_blocks=_blocks(len(todo)))
        components = None
        for row in ds.map_batches(_Parser, fn_constructor_args=(pipeline, out),
                                  **pool.map_args()).iter_rows():
            emit(json.loads(row["row"]))
            components = components or json.loads(row["components"])
        return components
    return run


def _plain(value: Any) -> Any:
    """A Ray/Arrow row value as plain Python (numpy arrays and scalars to lists and numbers)."""
    return value.tolist() if hasattr(value, "tolist") else value


def read_question_table(path: str | Path) -> list[dict[str, Any]]:
    """Question rows (``id``, ``image``, ``question``, ``answer``, other columns kept) of a
    Parquet file or folder, read with Ray's Parquet reader (any pyarrow filesystem URI:
    ``s3://bucket/questions.parquet``).

    Raises:
        ValueError: the table has no ``image``, ``question`` or ``answer`` column.
    """
    _require_ray()
    import ray.data

    ds = ray.data.read_parquet(str(path))
    missing = {"image", "question", "answer"} - set(ds.schema().names)
    if missing:
        raise ValueError(f"{path}: question table lacks column(s) {', '.join(sorted(missing))}")
    return [{k: _plain(v) for k, v in row.items()} for row in ds.iter_rows()]


def _questions_arg(questions: str | Path | Iterable[dict[str, Any]],
                   ) -> str | Path | Iterable[dict[str, Any]]:
    if isinstance(questions, (str, Path)) and str(questions).lower().endswith(TABLE_SUFFIXES):
        return read_question_table(questions)
    return questions


def attribute_dataset(pipeline: PipelineSource, images: str | Path, out_dir: str | Path, *,
                      questions: str | Path | Iterable[dict[str, Any]],
                      pool: ActorPool | None = None, overlays: bool = True,
                      allow_outside_images: bool = False, address: str | None = None) -> Dataset:
    """A lazy Ray Dataset of attribution records, one row per question.

    Rows: ``id``, ``image``, ``question``, ``answer``, ``error`` (None when answered),
    ``node_ids`` and ``record`` (the full results.jsonl record as JSON text). Parses and
    overlays are written under ``out_dir`` as the rows are computed. Unlike
    `run_attribute_ray` it neither resumes nor writes results.jsonl: consume it with Ray
    (``write_parquet``, ``iter_rows``, joins with other datasets).

    Args:
        pipeline: a zero-argument factory each actor calls once (or a picklable `FlowPath`).
        images: the images folder (question ``image`` paths are relative to it).
        out_dir: where parses and overlays go (a filesystem every node sees).
        questions: a questions JSONL, a Parquet question table, or question dicts.
        pool: the actor pool (default: one actor, one CPU).
        overlays: write ``overlays/<id>.png``.
        allow_outside_images: read question images outside the images folder.
        address: Ray to connect to when not connected yet (see `connect`).

    Returns:
        The dataset; nothing runs until it is consumed.

    >>> ds = attribute_dataset(FlowPath.default, "charts", "out",
    ...                        questions="questions.parquet")  # doctest: +SKIP
    >>> ds.write_parquet("out/results.parquet")                 # doctest: +SKIP
    """
    connect(address)
    import ray.data

    items, qdir = load_questions(_questions_arg(questions))
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    job = AttributeJob(out=out, images=image_root(images), questions_dir=qdir, overlays=overlays,
                       allow_outside_images=allow_outside_images)
    groups: dict[str, list[QuestionItem]] = {}
    for it in items:
        if not it.error:
            groups.setdefault(it.image, []).append(it)
    ds = _image_rows(pipeline, job, groups, pool or ActorPool()).flat_map(_question_rows)
    # a bad question line (bad JSON, no question text) is a failed record, as in results.jsonl
    bad = [_table_row(failed_record(it, it.error)) for it in items if it.error]
    return ds.union(ray.data.from_items(bad)) if bad else ds


def _table_row(rec: dict[str, Any]) -> dict[str, Any]:
    return {"id": rec["id"], "image": rec.get("image"), "question": rec.get("question"),
            "answer": rec.get("answer"), "error": rec.get("error"),
            "node_ids": [str(n) for n in rec.get("node_ids") or []], "record": json.dumps(rec)}


def _question_rows(row: dict[str, Any]) -> list[dict[str, Any]]:
    return [_table_row(rec) for rec in json.loads(row["records"])]


def _write_parquet(out: Path) -> Path:
    """``OUT_DIR/results.parquet/``: results.jsonl as a Parquet table (`_table_row` columns),
    written with Ray's Parquet writer (replaced on every run)."""
    import ray.data

    path = out / "results.parquet"
    rows = [_table_row(r) for r in read_results(out / "results.jsonl").values()]
    ray.data.from_items(rows).write_parquet(str(path), mode=ray.data.SaveMode.OVERWRITE)
    return path


def run_attribute_ray(pipeline: PipelineSource, images: str | Path, out_dir: str | Path, *,
                      questions: str | Path | Iterable[dict[str, Any]],
                      pool: ActorPool | None = None, address: str | None = None,
                      overlays: bool = True, report: bool = True, progress: bool = True,
                      allow_outside_images: bool = False,
                      output_format: str = "jsonl") -> dict[str, Any]:
    """`flowpath.batch.run_attribute` with the images mapped over a Ray Data actor pool.

    Same outputs, same records, same resume and failure rules as the local engine (see
    `flowpath.batch`); ``output_format="parquet"`` also writes ``results.parquet/``.
    ``questions`` may also be a Parquet table (``.parquet``, a local path or a pyarrow URI).

    Args:
        pipeline: a zero-argument factory each actor calls once (or a picklable `FlowPath`).
        images: the images folder, or one image.
        out_dir: the output folder (on a filesystem every node sees).
        questions: a questions JSONL, a Parquet question table, or question dicts.
        pool: the actor pool (default: one actor, one CPU).
        address: Ray to use when not connected yet (`connect`); a cluster started here is
            shut down at the end.
        overlays: write ``overlays/<id>.png``.
        report: write ``report.html``.
        progress: show progress bars.
        allow_outside_images: read question images outside the images folder.
        output_format: ``"jsonl"`` or ``"parquet"``.

    Returns:
        The summary dict (also in ``summary.json``).
    """
    if output_format not in ("jsonl", "parquet"):
        raise ValueError(f"output_format must be 'jsonl' or 'parquet', got {output_format!r}")
    pool = pool or ActorPool()
    with _session(address, progress):
        summary = run_attribute(pipeline, images, out_dir, questions=_questions_arg(questions),
                                overlays=overlays, report=report, progress=progress,
                                allow_outside_images=allow_outside_images,
                                map_images=_image_mapper(pipeline, pool))
        if output_format == "parquet":
            _write_parquet(Path(out_dir))
    return summary


def run_parse_ray(pipeline: PipelineSource, images: str | Path, out_dir: str | Path, *,
                  pool: ActorPool | None = None, address: str | None = None,
                  progress: bool = True) -> dict[str, Any]:
    """`flowpath.batch.run_parse` with the images mapped over a Ray Data actor pool (same
    outputs and resume rule).

    Returns:
        The summary dict (also in ``summary.json``).
    """
    pool = pool or ActorPool()
    with _session(address, progress):
        return run_parse(pipeline, images, out_dir, progress=progress,
                         map_parses=_parse_mapper(pipeline, pool))

