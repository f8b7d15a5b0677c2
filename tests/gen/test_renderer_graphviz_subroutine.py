"""Graphviz's subroutine box in its default look (real ``dot``, real Chromium, real OCR): the
generator draws a subroutine with ``peripheries=2``, a filled inner box and a second outline a
few points outside it with the page between, and connectors end at the outer outline. The
node is the outer box. Found as its inner box, a small subroutine misses its gold region at
IoU 0.7, and the outer outline, left outside the node, joins the connector entering the box to
the one leaving it (main lost the chain's first three edges).

(The file name sorts after test_pipeline.py, as test_renderer_flowchartjs.py does.)"""

from __future__ import annotations

import pytest

from tests.gen.graphviz_reads import read_default_graphviz
from tests.markers import require_chromium, require_tesseract

#: two subroutines in a row, a plain box and a short subroutine (a small double box)
CHAIN = """flowchart TD
    A(["Start"]) --> B[["Execute cleanup routine"]]
    B --> C[["Run the count subroutine"]]
    C --> D["Release the lock on node"]
    D --> E[["Call send()"]]
    E --> F(["End"])
"""


@require_chromium
@require_tesseract
@pytest.mark.chromium
def test_graphviz_subroutines_are_their_outer_boxes_and_keep_their_edges(renderer, tmp_path):
    # the generator's default look (tuning chart gvprint7_s7703/gen000009: same style and id,
    # so the same dot layout knobs)
    read = read_default_graphviz(renderer, tmp_path, CHAIN, job_id="gen000009", font="Liberation Sans")
    assert len(read.regions) == len(read.nodes)
    assert read.edges == read.want, (read.edges ^ read.want, read.problems)
