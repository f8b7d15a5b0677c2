"""Cross-check against Mermaid itself (the pinned npm mermaid 11, run in Debian Chromium).

* everything `to_mermaid` writes must be accepted by Mermaid and mean the same graph there
  (ids in order, label text, edges with stroke/markers/length/label, subgraph membership);
* for hand-written syntax Mermaid accepts, `parse_mermaid` must build the same graph;
* the documented superset (nested brackets and quotes inside unquoted labels) is rejected by
  Mermaid and accepted by us.
"""

from __future__ import annotations

import html
import json
import random
from importlib.util import find_spec

import pytest

from flowpath.graph import DIRECTIONS, SHAPES, Edge, FlowChart, Node, Subgraph
from flowpath.mermaid import parse_mermaid, to_mermaid
from tests.markers import FEBENCH_DEV, REPO_ROOT, require_chromium, require_febench

pytestmark = [require_chromium,
              pytest.mark.skipif(find_spec("playwright") is None, reason="needs playwright (flowpath[gen])")]

_JS_PARSE = """async (texts) => {
  const out = [];
  for (const text of texts) {
    try {
      const db = (await mermaid.mermaidAPI.getDiagramFromText(text)).db;
      out.push({v: [...db.getVertices().values()].map(v => [v.id, v.text, v.labelType ?? null]),
                e: db.getEdges().map(e => [e.start, e.end, e.text, e.type, e.stroke, e.length]),
                s: db.getSubGraphs().map(s => [s.id, s.title, s.nodes])});
    } catch (err) { out.push({err: String(err.message || err)}); }
  }
  return out;
}"""

_MARKERS = {"arrow": "point", "none": "open", "circle": "circle", "cross": "cross"}


@pytest.fixture(scope="module")
def mermaidjs():
    """``texts -> [Mermaid's own parse of each]``, one headless Chromium for the module."""
    import shutil

    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=shutil.which("chromium"),
                                     args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page()
        page.set_content("<html><body></body></html>")
        page.add_script_tag(path=str(REPO_ROOT / "node_modules" / "mermaid" / "dist" / "mermaid.min.js"))
        page.evaluate("mermaid.initialize({startOnLoad: false})")
        yield lambda texts: page.evaluate(_JS_PARSE, list(texts))
        browser.close()


def _text(raw: str) -> str:
    """Mermaid's stored label -> displayed text (its entity placeholders, then HTML entities)."""
    raw = raw.replace("<br/>", "\n").replace("<br>", "\n")  # real line breaks, before entities
    raw = raw.replace("\ufb02\u00b0\u00b0", "&#").replace("\ufb02\u00b0", "&").replace("\u00b6\u00df", ";")
    return html.unescape(raw).strip()


def _differences(chart: FlowChart, js: dict, markdown_raw: bool = False) -> list[str]:
    """How Mermaid's graph differs from ours (empty when they agree)."""
    if "err" in js:
        return [f"Mermaid rejected it: {js['err'].splitlines()[-1][:200]}"]
    out = []
    ids = [v[0] for v in js["v"]]
    if ids != list(chart.nodes):
        out.append(f"node ids {ids} != {list(chart.nodes)}")
    for nid, raw, label_type in js["v"]:
        if nid in chart.nodes and not (markdown_raw and label_type == "markdown"):
            if _text(raw) != chart.nodes[nid].text.strip():
                out.append(f"node {nid}: {_text(raw)!r} != {chart.nodes[nid].text!r}")
    theirs = [(s, t, _text(x), typ if stroke != "invisible" else "-", stroke, n) for s, t, x, typ, stroke, n in js["e"]]
    ours = [(e.source, e.target, (e.label or "").strip(),
             ("double_arrow_" if e.tail != "none" else "arrow_") + _MARKERS[e.head] if e.stroke != "invisible" else "-",
             e.stroke, e.length) for e in chart.edges]
    if theirs != ours:
        out.append(f"edges {theirs} != {ours}")
    their_groups = sorted((s, _text(t), sorted(n for n in nodes if n in chart.nodes)) for s, t, nodes in js["s"])
    our_groups = sorted((g.id, g.title.strip(), sorted(g.nodes)) for g in chart.subgraphs)
    if their_groups != our_groups:
        out.append(f"subgraphs {their_groups} != {our_groups}")
    return out


def _random_chart(rng: random.Random) -> FlowChart:
    alphabet = list("abcXYZ 019_-.,:;!?'\"#|[](){}/\\`*=~ox") + ["#quot;", "#35;", "é", "中", "\n", "  ", "<br>", "&amp;", "&#39;", "&"]

    def text(n: int) -> str:
        return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, n)))

    fc = FlowChart(rng.choice(DIRECTIONS))
    ids = rng.sample(["A", "B", "C", "D1", "e_2", "x", "o", "n-1", "Foo", "v", "end2"], rng.randint(1, 7))
    for nid in ids:
        fc.add_node(Node(nid, text(10), rng.choice(SHAPES)))
    for _ in range(rng.randint(0, 8)):
        stroke = rng.choice(["normal", "thick", "dotted", "invisible"])
        head = "none" if stroke == "invisible" else rng.choice(["arrow", "none", "circle", "cross"])
        # Mermaid only has symmetric two-ended links (<-->, o--o, x--x)
        tail = "none" if stroke == "invisible" or rng.random() < 0.6 else head
        fc.add_edge(Edge(rng.choice(ids), rng.choice(ids), rng.choice([None, text(8)]), stroke, head,
                         "none" if head == "none" else tail, rng.randint(1, 3)))
    if rng.random() < 0.5:
        outer = Subgraph("sg0", text(6), [n for n in ids if rng.random() < 0.4], None, rng.choice([None, "LR"]))
        rest = [n for n in ids if n not in outer.nodes and rng.random() < 0.5]
        fc.subgraphs = [outer] + ([Subgraph("sg1", text(4), rest, "sg0")] if rest else [])
    return fc


def test_everything_to_mermaid_writes_means_the_same_in_mermaid(mermaidjs):
    rng = random.Random(20260101)
    charts = [_random_chart(rng) for _ in range(150)]
    texts = [to_mermaid(c) for c in charts]
    for chart, text, js in zip(charts, texts, mermaidjs(texts), strict=True):
        assert parse_mermaid(text) == chart
        assert _differences(chart, js) == [], text


# Syntax written by hand (the styles people and models use) that Mermaid accepts.
HAND_WRITTEN = [
    "A-->B", "A --text--> B", "A-- text ---B", "A --o B", "A --> oB", "A---oB", "A --- oB", "1 --> 2",
    "A & B-->C", "A:::c --> B", "A-->|text|B", "A -. text .-> B", "A == text ==> B", "A --- |x| B",
    "A-. text .->B", "n-1-->n-2", "a.b --> c", "A --> B; B --> C", 'A["a"] & B["b"] --> C',
    "A --> B & C --> D", "A(Start) --> B{Is it?}", "B -- Yes --> C[OK]", "B -- No ----> D[Retry]",
    'A -->|"quoted | pipe"| B', "A ==>|thick| B", "A --x B", "A x--x B", "A <--> B", "A <-.-> B",
    "A <==> B", "A o--o B", "A --> B --> C --> A", "A{Is x > 5?}", "A[Text with : colon]",
    "A[a<br>b]", "A[a<br/>b]", "A --> B:::someclass", 'A@{ shape: rect, label: "x" } --> B',
    "A@{ shape: circle } --> B", 'A@{ shape: doc, label: "Doc" }', "A@{shape: cyl, label: 'x'}",
    "Ä --> Ö", "A -->B", "A--> B", "A---B", "A--->B", "A-.->B", "A-..->B", "A==>B", "A===>B",
    "A ~~~ B", "A ~~~~ B", "direction --> accTitle", "accDescr --> default", "o --> x --> v", "A --> |Yes| B", 'A -- "text" --> B', "A[/In/] --> B[\\Out\\]",
    "A[/Trap\\] --> B[\\Inv/]", "A>Flag] --> B(((Dbl)))", "A([Pill]) --> B[[Sub]] --> C[(Db)]",
    "A((Circ)) --> B{{Hex}}", "A(-Ell-)", 'A["#quot;x#quot; #amp; #35;1"] --> B',
    'A["`**Bold** and *it*`"]', 'A["`multi\n   line`"]',
]
HAND_WRITTEN_BLOCKS = [
    "graph TD;A-->B;B-->C;",
    "flowchart LR\nsubgraph one [One title]\nA-->B\nend\nsubgraph two\nC\nend\nsubgraph three four\nD\nend",
    "flowchart TD\nsubgraph s1\nsubgraph s2\nA\nend\nB\nend\nA-->C",
    "flowchart TD\nA-->B\nsubgraph s\ndirection LR\nB-->C\nend",
    "flowchart TD\nA --> B\n%% c\nclick A callback\nstyle A fill:#f00\nclassDef x fill:#0f0\nclass A x\n"
    "linkStyle 0 stroke:red",
]


def test_hand_written_syntax_builds_the_graph_mermaid_builds(mermaidjs):
    texts = [f"flowchart TD\n    {line}\n" for line in HAND_WRITTEN] + HAND_WRITTEN_BLOCKS
    for text, js in zip(texts, mermaidjs(texts), strict=True):
        # markdown labels: Mermaid stores the raw markdown, we keep the rendered text
        assert _differences(parse_mermaid(text), js, markdown_raw=True) == [], text
    md = parse_mermaid('flowchart TD\n A["`**Bold** and *it*`"]')
    assert md.nodes["A"].text == "Bold and it"


@pytest.mark.parametrize("line", ["A[f(x) and g[y]]", "A(call (nested) here)", 'A[He said "hi"]'])
def test_documented_superset(mermaidjs, line):
    text = f"flowchart TD\n    {line}\n"
    assert "err" in mermaidjs([text])[0]
    assert len(parse_mermaid(text).nodes) == 1


def test_reserved_ids_are_rejected_by_mermaid_and_by_strict_parsing(mermaidjs):
    from flowpath.mermaid import MermaidSyntaxError
    from flowpath.mermaid.parser import RESERVED_IDS

    texts = [f"flowchart TD\n    A --> {word}\n" for word in sorted(RESERVED_IDS)]
    for text, js in zip(texts, mermaidjs(texts), strict=True):
        assert "err" in js, text
        with pytest.raises(MermaidSyntaxError, match="keyword"):
            parse_mermaid(text)


@require_febench
def test_febench_sources_and_their_exports_agree_with_mermaid(mermaidjs):
    sources = [json.loads(p.read_text())["mermaid"] for p in sorted((FEBENCH_DEV / "charts").glob("*.json"))]
    charts = [parse_mermaid(s) for s in sources]
    exports = [to_mermaid(c) for c in charts]
    results = mermaidjs(sources + exports)
    for chart, text, js in zip(charts + charts, sources + exports, results, strict=True):
        assert _differences(chart, js) == [], text
