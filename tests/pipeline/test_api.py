"""FlowPath / ParsedChart / Attribution: parse caching, input forms, round trips, overlays."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PIL import Image

from flowpath.errors import ImageLoadError, ModelError
from flowpath.geometry import Region
from flowpath.io import load_image, save_image
from flowpath.models.base import Reasoner, Reasoning, ReasoningRequest
from flowpath.pipeline import Attribution, FlowPath, ParsedChart
from flowpath.reason import OfflineReasoner
from tests.pipeline.helpers import BOXES, BoxSegmenter, ChainTranscriber, draw_chart


@pytest.fixture
def fp():
    return FlowPath(segmenter=BoxSegmenter(), transcriber=ChainTranscriber(),
                    reasoner=OfflineReasoner())


def test_parse_labels_in_reading_order_and_caches_by_content(fp, tmp_path):
    img = draw_chart()
    path = tmp_path / "chart.png"
    save_image(img, path)
    parsed = fp.parse(path)
    assert parsed.letters == ["A", "B", "C"]
    assert [r.bbox for r in parsed.regions.values()] == [tuple(map(float, b)) for b in BOXES]
    assert parsed.graph.successors("A") == ["B"]
    assert parsed.source == str(path)
    assert parsed.labelled_image.shape == img.shape
    assert not np.array_equal(parsed.labelled_image, img)  # letters were drawn
    assert {"segment", "label", "transcribe", "total"} <= set(parsed.timings)
    # the same pixels as array and as PIL image hit the cache: the segmenter ran once
    assert fp.parse(img).image_hash == parsed.image_hash
    fp.parse(Image.fromarray(img))
    assert fp.segmenter.calls == 1
    fp.parse(draw_chart(shift=5))
    assert fp.segmenter.calls == 2
    fp.clear_cache()
    fp.parse(img)
    assert fp.segmenter.calls == 3


def test_attribute_maps_nodes_to_regions(fp):
    img = draw_chart()
    att = fp.attribute(img, "What is done after checking the value?", "Print the result")
    assert att.ok, att.error
    assert att.node_ids and set(att.letters) <= {"A", "B", "C"}
    by_letter = dict(zip("ABC", BOXES, strict=True))
    for letter, region in zip(att.letters, att.regions, strict=True):
        assert region.bbox == tuple(map(float, by_letter[letter]))
    assert all(s in att.node_ids and t in att.node_ids for s, t in att.path_edges)
    assert att.timings["parse"] > 0
    again = fp.attribute(img, "Where does the chart start?", "Start")
    assert again.timings["parse"] == 0.0  # cached parse


class _Failing(Reasoner):
    name = "failing"

    def __call__(self, request: ReasoningRequest) -> Reasoning:
        raise ModelError("reasoner 'failing': server did not answer in 30 s")


class _Buggy(Reasoner):
    name = "buggy"

    def __call__(self, request: ReasoningRequest) -> Reasoning:
        return {}["no such key"]  # a bug, not a model failure


class _Unknown(Reasoner):
    name = "unknown-ids"

    def __call__(self, request: ReasoningRequest) -> Reasoning:
        return Reasoning(node_ids=["B", "ZZ"], reason="B and a made-up node")


def test_reasoner_failure_is_recorded_not_raised():
    fp = FlowPath(segmenter=BoxSegmenter(), transcriber=ChainTranscriber(), reasoner=_Failing())
    att = fp.attribute(draw_chart(), "q?", "a")
    assert not att.ok and "did not answer" in att.error and att.node_ids == []


def test_reasoner_bug_is_not_disguised_as_a_model_failure():
    # only typed failures become an Attribution error; a bug propagates (the batch records it)
    fp = FlowPath(segmenter=BoxSegmenter(), transcriber=ChainTranscriber(), reasoner=_Buggy())
    with pytest.raises(KeyError):
        fp.attribute(draw_chart(), "q?", "a")


def test_unknown_node_ids_are_reported_and_dropped_from_regions():
    fp = FlowPath(segmenter=BoxSegmenter(), transcriber=ChainTranscriber(), reasoner=_Unknown())
    att = fp.attribute(draw_chart(), "q?", "a")
    assert att.node_ids == ["B", "ZZ"] and att.letters == ["B"] and len(att.regions) == 1
    assert any("ZZ" in p for p in att.problems)


@pytest.mark.parametrize(
    "image, question, answer, exc, match",
    [
        ("missing.png", "q?", "a", ImageLoadError, "no such file"),
        (np.zeros((0, 5, 3), np.uint8), "q?", "a", ImageLoadError, "zero size"),
        (draw_chart(), "", "a", ValueError, "question"),
        (draw_chart(), "q?", None, ValueError, "answer"),
    ],
)
def test_bad_inputs_raise_clear_errors(fp, image, question, answer, exc, match):
    with pytest.raises(exc, match=match):
        fp.attribute(image, question, answer)


def test_attribution_round_trip_and_overlay(fp, tmp_path):
    img = draw_chart()
    att = fp.attribute(img, "What is done after checking the value?", "Print the result")
    d = json.loads(json.dumps(att.to_dict()))
    back = Attribution.from_dict(d)
    assert back == att  # dataclass equality ignores the image array
    assert back.to_dict() == att.to_dict()
    out = att.save_overlay(tmp_path / "o.png")
    drawn = load_image(out)
    assert drawn.shape == img.shape and not np.array_equal(drawn, img)
    # a deserialised attribution made from an array has no image: it says so
    with pytest.raises(ValueError, match="pass image"):
        back.save_overlay(tmp_path / "o2.png")
    back.save_overlay(tmp_path / "o2.png", image=img)
    assert np.array_equal(load_image(tmp_path / "o2.png"), drawn)


def test_parsed_chart_round_trip(fp):
    parsed = fp.parse(draw_chart())
    back = ParsedChart.from_dict(json.loads(json.dumps(parsed.to_dict())))
    assert back.graph == parsed.graph and back.regions == parsed.regions
    assert back.image_hash == parsed.image_hash and back.mermaid == parsed.mermaid


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"letters": ["A"], "regions": []}, "pair up"),
    ],
)
def test_attribution_validation(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Attribution(question="q", answer="a", **kwargs)


def test_from_dict_names_missing_keys():
    with pytest.raises(ValueError, match="question"):
        Attribution.from_dict({"answer": "a"})
    with pytest.raises(ValueError, match="image_hash"):
        ParsedChart.from_dict({"width": 3})


def test_constructor_rejects_non_callables():
    with pytest.raises(ValueError, match="segmenter"):
        FlowPath(segmenter=None, transcriber=ChainTranscriber(), reasoner=OfflineReasoner())  # type: ignore[arg-type]


def test_region_type_checked():
    with pytest.raises(ValueError, match="not a Region"):
        ParsedChart(image_hash="x", width=3, height=3, regions={"A": (0, 0, 1, 1)},  # type: ignore[dict-item]
                    graph=None, mermaid="")  # type: ignore[arg-type]
    assert Region((0, 0, 1, 1)).area == 1


# -- component registry (flowpath.registry): one helper behind the three stage factories ------

class _WithDevice:
    def __init__(self, *, device: str = "cpu", size: int = 1) -> None:
        self.device, self.size = device, size


class _WithoutDevice:
    def __init__(self, *, size: int = 1) -> None:
        self.size = size


def test_registry_passes_device_only_to_components_that_declare_it():
    from flowpath.registry import Registry

    reg = Registry("widget", {"with": f"{__name__}:_WithDevice",
                              "without": f"{__name__}:_WithoutDevice"}, aliases={"w-d": "with"})
    assert reg.accepts("with", "device") and not reg.accepts("without", "device")
    assert reg.make("W_D", device="cuda:1", size=3).device == "cuda:1"
    assert reg.make("without", device="cuda:1", size=3).size == 3
    # other keywords are not filtered: a typo stays an error, which names it and what is taken
    with pytest.raises(ValueError, match=r"the 'without' widget has no setting 'colour'; it takes: size"):
        reg.make("without", colour="red")
    with pytest.raises(ValueError, match=r"unknown widget 'nope'; choose one of \['with', 'without'\]"):
        reg.make("nope")


def test_registry_names_the_missing_extra():
    from flowpath.errors import MissingDependencyError
    from flowpath.registry import Registry

    reg = Registry("widget", {"a": f"{__name__}:_WithDevice"},
                   requires={"a": [("flowpath_no_such_package", "widgets")]})
    with pytest.raises(MissingDependencyError, match=r"pip install 'flowpath\[widgets\]'"):
        reg.make("a")


def test_stage_factories_share_the_registry_and_load_lazily():
    import flowpath.segment
    from flowpath.reason import REASONERS
    from flowpath.segment import SEGMENTERS, make_segmenter
    from flowpath.transcribe import TRANSCRIBERS

    assert SEGMENTERS.accepts("mask2former", "device") and not SEGMENTERS.accepts("classical", "device")
    assert TRANSCRIBERS.resolve("tesseract") == "ocr" and "offline" in REASONERS
    assert make_segmenter("classical", device="cuda").name == "classical"  # nothing to place
    assert flowpath.segment.ClassicalSegmenter is type(make_segmenter("classical"))
    with pytest.raises(AttributeError, match="Nope"):
        flowpath.segment.Nope  # noqa: B018
    fp = FlowPath.from_names("classical", "source", "offline", device="cpu")
    assert fp.describe() == {"segmenter": "classical", "transcriber": "source", "reasoner": "offline"}


def test_path_edges_are_the_walk_not_its_shortcuts():
    from flowpath.mermaid import parse_mermaid
    from flowpath.pipeline import walk_edges

    chart = parse_mermaid("""flowchart TD
    C{"Is the credit score above 600?"} -->|"Yes"| D["Check the applicant's income"]
    C -->|"No"| G["Reject the application"]
    D --> E{"Is the income sufficient?"}
    E -->|"No"| G
    E -->|"Yes"| F["Approve the loan"]
""")
    # the story's walk: the credit check's direct "No" to reject is not part of it
    assert walk_edges(chart, ["C", "D", "E", "G"]) == [("C", "D"), ("D", "E"), ("E", "G")]
    # the direct edge is the path when it is the only route among the chosen nodes
    assert walk_edges(chart, ["C", "G"]) == [("C", "G")]
    # a loop among the chosen nodes has no single walk: every edge among them is drawn
    looped = parse_mermaid("flowchart TD\n    C --> D\n    D --> E\n    E --> C\n    C --> E\n")
    assert set(walk_edges(looped, ["C", "D", "E"])) == {("C", "D"), ("D", "E"), ("E", "C"), ("C", "E")}
