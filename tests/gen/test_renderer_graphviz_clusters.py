"""Graphviz's clusters in the generator's default look (real ``dot``, real Chromium, real OCR):
a subgraph is drawn as a filled frame with rounded corners (``style="rounded,filled"``), and
connectors cross its outline. The frame is no connector: each connector crossing it stays its
own edge. Its rounded corners leave the four straight sides unjoined, so the frame was not
found, and it joined the connector entering the cluster, the ones leaving it and the one
running inside along it into one piece (main lost C->F and D->E and drew D->C).

(The file name sorts after test_pipeline.py, as test_renderer_flowchartjs.py does.)"""

from __future__ import annotations

import pytest

from tests.gen.graphviz_reads import read_default_graphviz
from tests.markers import require_chromium, require_tesseract

#: a cluster holding a decision and its two branches; the flow enters it from above, leaves it
#: from its bottom and from its side, and one branch runs back out to the end
CLUSTER = """flowchart TD
    A(["Start"]) --> B{"Is the surface smooth?"}
    subgraph SG1["Cleanup"]
        B
        C(("Pour"))
        D["Sand the board"]
    end
    B -->|"No"| C
    B -->|"Yes"| D
    D --> E[("Config store")]
    C --> F(["Stop"])
    E --> F
"""


@require_chromium
@require_tesseract
@pytest.mark.chromium
def test_graphviz_cluster_frame_joins_no_connectors(renderer, tmp_path):
    # the generator's default look (tuning chart gvedge9_s9912/gen000017: same style and id)
    read = read_default_graphviz(renderer, tmp_path, CLUSTER, job_id="gen000017", font="DejaVu Sans Mono")
    assert read.edges == read.want, (read.edges ^ read.want, read.problems)
