"""Program charts in code symbols (`data_gen.code_qa.with_code_symbols`, ``--content
program``): the renderer draws ``<`` and quotes as characters, and the gold text says so."""

from __future__ import annotations

import random

import pytest

from tests.markers import require_chromium


@pytest.fixture(scope="module")
def renderer():
    # its own page, closed with this module: the session's shared renderer (conftest) would stay
    # open from here on, and Playwright allows one sync session per thread, so the generator
    # runs of tests/gen/test_pipeline.py (which start their own) failed after this module
    from data_gen.render import MermaidRenderer

    r = MermaidRenderer().start()
    yield r
    r.close()


@require_chromium
@pytest.mark.chromium
def test_code_symbols_are_drawn_and_recorded_as_characters(renderer):
    # Mermaid's SVG labels (htmlLabels off) wrote "i &lt; n?" and "print(&quot;x&quot;)" as
    # letters; a browser draws the characters, and so must the generator
    text = ('flowchart TD\n    A["i < n?"] --> B["print(#quot;Total:#quot;, total_sum)"]\n'
            '    B -->|"a <= b"| C["x = arr[i] & mask"]')
    out = renderer.render(text)
    texts = {n["id"]: n["text"].replace("\n", " ") for n in out.nodes}  # Mermaid wraps long lines
    assert texts == {"A": "i < n?", "B": 'print("Total:", total_sum)', "C": "x = arr[i] & mask"}
    assert [e["label"] for e in out.edges if e.get("label")] == ["a <= b"]
    # a long label Mermaid wraps inside an entity ("&q" / "uot;") is drawn whole too
    long = 'flowchart TD\n    A["print(#quot;Overflow!#quot;) and print(#quot;Total:#quot;, running_total_sum)"]'
    for n in renderer.render(long).nodes:
        assert "&" not in n["text"] and "quot" not in n["text"], n["text"]


def test_code_symbols_keep_the_program_and_speak_in_code():
    from data_gen.code_qa import random_program, with_code_symbols

    texts = []
    for seed in range(40):
        rng = random.Random(seed)
        p = random_program(rng)
        q = with_code_symbols(p, rng)
        # same graph, roles and branches; the words follow the new names
        assert [(e.source, e.target, e.label) for e in q.chart.edges] == \
               [(e.source, e.target, e.label) for e in p.chart.edges]
        assert q.role == p.role and set(q.say) == set(p.say)
        assert f"counter {q.var['c']} starts" in q.say[q.role["init_c"]]
        texts += [n.text for n in q.chart]
    joined = "\n".join(texts)
    for sign in ("==", "!=", "<=", "+=", "%", "[", "(", "_", '"', "'", "."):
        assert sign in joined, sign
