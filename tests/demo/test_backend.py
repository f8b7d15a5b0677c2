"""The demo's backend on real components (classical segmenter, tesseract OCR, rule reasoner):
component pickers, the parse cache, and clear errors that leave it working."""

from __future__ import annotations

import shutil
from importlib.util import find_spec

import pytest

from flowpath.errors import ImageLoadError, InputError
from tests.markers import REPO_ROOT, require_tesseract

TEA = REPO_ROOT / "examples" / "charts" / "tea.png"
QUESTION = "Someone is making green tea. How long should the leaves steep?"


@pytest.fixture(autouse=True)
def _no_llm(monkeypatch):
    for var in ("FLOWPATH_LLM_MODEL", "FLOWPATH_REASONER"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture(scope="module")
def backend():
    from flowpath.demo import DemoBackend

    return DemoBackend()


def test_pickers_offer_built_in_components_and_no_llm_without_settings():
    from flowpath.demo import available_components

    choices = available_components()
    assert "classical" in choices["segmenter"]
    assert "offline" in choices["reasoner"]
    assert not {"agent", "som"} & set(choices["reasoner"])
    # needs a checkpoint directory (a required argument): not configured, not offered
    assert "qwen2vl" not in choices["transcriber"]
    # reads Mermaid beside the image file, which an upload never has
    assert "source" not in choices["transcriber"]


@pytest.mark.skipif(find_spec("smolagents") is None, reason="needs smolagents (flowpath[agent])")
def test_llm_reasoners_are_offered_once_an_llm_is_configured(monkeypatch):
    from flowpath.demo import available_components

    monkeypatch.setenv("FLOWPATH_LLM_MODEL", "some-model")
    assert {"agent", "som"} <= set(available_components()["reasoner"])


@require_tesseract
def test_second_question_and_same_content_under_another_name_reuse_the_parse(backend, tmp_path):
    from flowpath import FlowPath

    first = backend.answer(str(TEA), QUESTION, "2 minutes.")
    assert first.attribution.ok and not first.cached
    reference = FlowPath.default()  # the Python API the page stands for
    assert first.attribution.letters == reference.attribute(TEA, QUESTION, "2 minutes.").letters
    assert first.parsed.mermaid == reference.parse(TEA).mermaid

    copy = tmp_path / "renamed.png"
    shutil.copy(TEA, copy)
    again = backend.answer(str(copy), "What is done after the water has been boiled?",
                           "The process checks whether it is green tea.")
    assert again.cached
    assert again.parsed is first.parsed


@require_tesseract
@pytest.mark.parametrize(("image", "question", "error", "words"), [
    ("tea", "   ", InputError, ["question is empty"]),
    (None, QUESTION, InputError, ["no image"]),
    ("corrupt", QUESTION, ImageLoadError, ["broken.png", "corrupt"]),
    ("text", QUESTION, ImageLoadError, ["notes.png", "not an image"]),
])
def test_bad_input_gets_a_message_and_the_backend_keeps_working(backend, tmp_path, image,
                                                                 question, error, words):
    paths = {"tea": str(TEA), None: None}
    (tmp_path / "broken.png").write_bytes(TEA.read_bytes()[:400])
    (tmp_path / "notes.png").write_text("not a picture", encoding="utf-8")
    paths["corrupt"] = str(tmp_path / "broken.png")
    paths["text"] = str(tmp_path / "notes.png")
    with pytest.raises(error) as info:
        backend.answer(paths[image], question, "x")
    for w in words:
        assert w in str(info.value)
    assert str(tmp_path) not in str(info.value)  # the upload's temporary folder is not shown
    assert backend.answer(str(TEA), QUESTION, "2 minutes.").attribution.letters


def test_images_over_the_pixel_cap_are_refused_before_parsing():
    from flowpath.demo import DemoBackend

    small = DemoBackend(max_pixels=10_000)
    with pytest.raises(ImageLoadError, match=r"tea\.png: image is \d+x\d+ .* over the 0\.01 Mpx limit"):
        small.answer(str(TEA), QUESTION, "2 minutes.")


def test_unknown_or_unavailable_component_is_a_clear_error(backend):
    with pytest.raises(ValueError, match="unknown segmenter 'nope'"):
        backend.pipeline(segmenter="nope")
    with pytest.raises(ValueError, match="'source' is not available here"):
        backend.pipeline(transcriber="source")


def test_demo_help_documents_every_flag(capsys):
    import argparse

    from flowpath.cli import main
    from flowpath.commands import demo as demo_command

    sub = argparse.ArgumentParser().add_subparsers()
    demo_command.register(sub)
    flags = [a for a in sub.choices["demo"]._actions if a.option_strings and a.dest != "help"]
    assert {"--host", "--port", "--share", "--max-upload-mb"} <= {s for a in flags for s in a.option_strings}
    with pytest.raises(SystemExit) as info:
        main(["demo", "--help"])
    assert info.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    for action in flags:
        assert action.help and " ".join(action.help.split()) in text, action.option_strings
    assert "(default: 127.0.0.1)" in text
    host = next(a for a in flags if "--host" in a.option_strings)
    share = next(a for a in flags if "--share" in a.option_strings)
    assert host.default == "127.0.0.1" and share.default is False
