"""Images read through pyarrow filesystems (`flowpath.batch.read_image`): ``s3://`` from a real
S3-compatible server on 127.0.0.1 (moto's), ``file://``, and the errors of a bad URI, each
recorded per question. The Ray engine's copy of these checks is in ``test_ray.py``."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path

import pytest

from flowpath.batch import read_image, run_attribute, run_parse
from flowpath.errors import ImageLoadError
from tests.pipeline.test_batch import folder, make_fp, read_results  # noqa: F401 - shared fixture

pytest.importorskip("pyarrow", reason="needs pyarrow (flowpath[ray])")

HAVE_MOTO = all(find_spec(m) is not None for m in ("moto", "flask", "boto3"))
require_moto = pytest.mark.skipif(not HAVE_MOTO,
                                  reason="needs moto[server] (flowpath[dev]) for a local S3 server")

BUCKET = "charts"

#: record keys that name where the image came from (a path or a URI) or measure time
WHERE_KEYS = ("source", "timings", "error")


@dataclass
class ObjectStore:
    """A running S3-compatible server and the environment a client needs to reach it."""

    endpoint: str
    env: dict[str, str]

    def upload(self, src: Path, prefix: str) -> str:
        """Copy every file under ``src`` to ``s3://BUCKET/prefix/``; returns that URI."""
        import boto3

        client = boto3.client("s3", endpoint_url=self.endpoint, region_name=self.env["AWS_DEFAULT_REGION"],
                              aws_access_key_id=self.env["AWS_ACCESS_KEY_ID"],
                              aws_secret_access_key=self.env["AWS_SECRET_ACCESS_KEY"])
        for p in sorted(src.rglob("*")):
            if p.is_file():
                client.put_object(Bucket=BUCKET, Key=f"{prefix}/{p.relative_to(src).as_posix()}",
                                  Body=p.read_bytes())
        return f"s3://{BUCKET}/{prefix}"


@contextmanager
def serve_object_store() -> Iterator[ObjectStore]:
    """moto's S3 server on a free port of 127.0.0.1 with one bucket; test-only credentials.

    The caller puts ``env`` into the environment of whatever reads from it (pyarrow's S3
    client reads ``AWS_ENDPOINT_URL`` and the keys from there, as on a real cluster)."""
    import boto3
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        endpoint = f"http://{host}:{port}"
        env = {"AWS_ENDPOINT_URL": endpoint, "AWS_ACCESS_KEY_ID": "test-only",
               "AWS_SECRET_ACCESS_KEY": "test-only", "AWS_DEFAULT_REGION": "us-east-1",
               "AWS_EC2_METADATA_DISABLED": "true"}
        boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                     aws_access_key_id="test-only",
                     aws_secret_access_key="test-only").create_bucket(Bucket=BUCKET)
        yield ObjectStore(endpoint, env)
    finally:
        server.stop()


@pytest.fixture(scope="module")
def object_store() -> Iterator[ObjectStore]:
    with serve_object_store() as store, pytest.MonkeyPatch.context() as mp:
        for k, v in store.env.items():
            mp.setenv(k, v)
        yield store


def same_answers(a: list[dict], b: list[dict]) -> None:
    """Records equal but for where the image came from; failures fail alike."""
    assert [r["id"] for r in a] == [r["id"] for r in b]
    assert [{k: v for k, v in r.items() if k not in WHERE_KEYS} for r in a] == \
        [{k: v for k, v in r.items() if k not in WHERE_KEYS} for r in b]
    assert [bool(r["error"]) for r in a] == [bool(r["error"]) for r in b]


@require_moto
def test_s3_images_answer_as_local_files_do(object_store, folder, tmp_path):  # noqa: F811
    images, qpath = folder
    uri = object_store.upload(images, "set1")
    local = run_attribute(make_fp(), images, tmp_path / "local", questions=qpath, progress=False)
    remote = run_attribute(make_fp(), uri, tmp_path / "s3", questions=qpath, progress=False)
    a, b = read_results(tmp_path / "local"), read_results(tmp_path / "s3")
    same_answers(a, b)
    assert remote["failed"] == local["failed"] == 5
    errors = {r["id"]: r["error"] for r in b if r["error"]}
    # the corrupt and the missing image are recorded, each naming its URI
    assert f"{uri}/broken.png" in errors["broken_0"] and "PIL" in errors["broken_0"]
    assert f"{uri}/nowhere.png: no such file or object" in errors["ghost"]
    ok = next(r for r in b if not r["error"])
    assert ok["source"] == f"{uri}/{ok['image']}"
    assert (tmp_path / "s3" / ok["overlay"]).is_file()

    # a rerun resumes: the saved parses are checked against the objects' content, not redone
    again = run_attribute(make_fp(), uri, tmp_path / "s3", questions=qpath, progress=False)
    assert again["resumed"] == remote["ok"] == 6 and again["images_this_run"] == 2


@require_moto
def test_s3_image_uris_in_questions_obey_the_images_folder(object_store, folder, tmp_path):  # noqa: F811
    images, _ = folder
    uri = object_store.upload(images, "set2")
    questions = [
        {"id": "inside", "image": f"{uri}/sub/c0.png", "question": "Where does it start?",
         "answer": "Start"},
        {"id": "other", "image": f"s3://{BUCKET}/set2x/c0.png", "question": "Where?",
         "answer": "Start"},
        {"id": "nobucket", "image": "s3://no-such-bucket/c0.png", "question": "Where?",
         "answer": "Start"},
        {"id": "scheme", "image": "nosuchfs://host/c0.png", "question": "Where?", "answer": "Start"},
    ]
    summary = run_attribute(make_fp(), uri, tmp_path / "a", questions=questions, progress=False)
    errors = {e["id"]: e["error"] for e in summary["errors"]}
    assert set(errors) == {"other", "nobucket", "scheme"}
    assert all("--allow-outside-images" in e for e in errors.values())
    # with outside images allowed, each bad URI is its own recorded error that names it
    summary = run_attribute(make_fp(), uri, tmp_path / "b", questions=questions, progress=False,
                            allow_outside_images=True)
    errors = {e["id"]: e["error"] for e in summary["errors"]}
    assert set(errors) == {"other", "nobucket", "scheme"}
    for q in questions[1:]:
        assert errors[q["id"]].startswith(q["image"] + ": ")
    assert "pyarrow" in errors["scheme"]


@require_moto
def test_parse_lists_and_reads_an_s3_folder(object_store, folder, tmp_path):  # noqa: F811
    images, _ = folder
    uri = object_store.upload(images, "set3")
    local = run_parse(make_fp(), images, tmp_path / "local", progress=False)
    remote = run_parse(make_fp(), uri, tmp_path / "s3", progress=False)
    assert [r["image"] for r in remote["rows"]] == [r["image"] for r in local["rows"]]
    assert remote["failed"] == local["failed"] == 1  # broken.png
    for name in ("sub%2Fc0.png.mmd", "sub%2Fc2.png.mmd"):
        assert (tmp_path / "s3" / name).read_text() == (tmp_path / "local" / name).read_text()


def test_file_uris_read_like_paths(folder, tmp_path):  # noqa: F811
    images, qpath = folder
    uri = images.resolve().as_uri()
    assert uri.startswith("file:///")
    run_attribute(make_fp(), images, tmp_path / "local", questions=qpath, progress=False)
    run_attribute(make_fp(), uri, tmp_path / "uri", questions=qpath, progress=False)
    same_answers(read_results(tmp_path / "local"), read_results(tmp_path / "uri"))
    assert (read_image(f"{uri}/sub/c1.png") == read_image(images / "sub" / "c1.png")).all()


@pytest.mark.parametrize("name, content, message", [
    ("empty.png", b"", "file is empty"),
    ("junk.png", b"not an image", "not an image file PIL can read"),
    ("missing.png", None, "no such file or object"),
    ("", None, "is a directory"),
])
def test_bad_uri_images_raise_errors_that_name_them(name, content, message, tmp_path):
    if content is not None:
        (tmp_path / name).write_bytes(content)
    uri = tmp_path.as_uri() + "/" + name
    with pytest.raises(ImageLoadError, match=message) as exc:
        read_image(uri)
    assert str(exc.value).startswith(uri)


def test_an_oversized_object_is_refused_before_download(tmp_path):
    big = tmp_path / "big.png"
    big.write_bytes(os.urandom(9000))
    with pytest.raises(ImageLoadError, match="too large"):
        read_image(big.as_uri(), max_pixels=1000)
