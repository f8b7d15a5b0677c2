"""Rebuild the embedded examples (``make demo``): render the charts below with the project's
Mermaid renderer (``data_gen``, Debian chromium + the pinned npm Mermaid) and write them in the
benchmark layout, so ``examples/`` is also a tiny benchmark (Mermaid ids follow reading order,
so they equal the letters the labeller draws and results read alongside the gold):

    examples/charts/<name>.png   the rendering (default Mermaid theme, 2x, like the benchmark)
    examples/charts/<name>.json  {"mermaid", "width", "height", "scale", "domain",
                                  "nodes": {id: {"bbox", "polygon"}}}
    examples/questions.jsonl     {"id", "chart", "image", "question", "answer", "type",
                                  "domain", "gold"} (gold written by hand)

Run: ``.venv/bin/python examples/build_examples.py`` (needs ``flowpath[gen]``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

CHARTS = {
    "loan": ("instruct", """flowchart TD
    A(["Start"]) --> B[/"Receive the loan application"/]
    B --> C{"Is the credit score above 600?"}
    C -->|"Yes"| D["Check the applicant's income"]
    C -->|"No"| G["Reject the application"]
    D --> E{"Is the income sufficient?"}
    E -->|"Yes"| F["Approve the loan"]
    E -->|"No"| G
    F --> H(["End"])
    G --> H
"""),
    "sum_items": ("code", """flowchart TD
    A(["Start"]) --> B[/"Receive the list 'items'"/]
    B --> C["Set 'total' to 0"]
    C --> D{"Are there items left?"}
    D -->|"Yes"| E["Add the next item to 'total'"]
    E --> D
    D -->|"No"| F[/"Return 'total'"/]
    F --> G(["End"])
"""),
    "tea": ("wiki", """flowchart TD
    A(["Start"]) --> B["Boil the water"]
    B --> C{"Is it green tea?"}
    C -->|"Yes"| D["Cool the water to 80 degrees"]
    C -->|"No"| E["Use the water at 100 degrees"]
    D --> F["Steep the leaves for 2 minutes"]
    E --> G["Steep the leaves for 4 minutes"]
    F --> H["Serve the tea"]
    G --> H
    H --> I(["End"])
"""),
}

QUESTIONS = [
    ("loan", "fact_retrieval", "What is checked once the credit score is found to be above 600?",
     "The applicant's income is checked.", ["C", "D"]),
    ("loan", "applied_scenario",
     "An applicant has a credit score of 720 but an insufficient income. What happens to the application?",
     "The application is rejected.", ["C", "E", "G"]),
    ("loan", "topological",
     "How many edges are on the shortest path from 'Start' to 'Reject the application'?", "3",
     ["A", "G"]),
    ("sum_items", "flow_referential", "What does the function do right after setting 'total' to 0?",
     "It checks whether there are items left.", ["C", "D"]),
    ("sum_items", "fact_retrieval", "What does the function return?", "It returns 'total'.", ["F"]),
    ("tea", "applied_scenario", "Someone is making green tea. How long should the leaves steep?",
     "2 minutes.", ["C", "D", "F"]),
    ("tea", "topological", "Which step has the most incoming edges?", "Serve the tea", ["H"]),
    ("tea", "flow_referential", "What is done after the water has been boiled?",
     "The process checks whether it is green tea.", ["B", "C"]),
]


def main() -> None:
    from data_gen.raster import annotate, plan_raster, rasterize_svg
    from data_gen.render import MermaidRenderer
    from flowpath.io import atomic_write_text, save_image

    charts = HERE / "charts"
    with MermaidRenderer() as r:
        for name, (domain, text) in CHARTS.items():
            out = r.render(text)
            w, h, scale = plan_raster(out.view_box)
            img = rasterize_svg(out.svg, w, h)
            ann = annotate({"view_box": out.view_box, "nodes": out.nodes, "edges": out.edges,
                            "clusters": out.clusters}, w, h, scale)
            save_image(img, charts / f"{name}.png")
            nodes = {k: {"bbox": v["bbox"], "polygon": v["polygon"]} for k, v in ann["nodes"].items()}
            atomic_write_text(charts / f"{name}.json", json.dumps(
                {"mermaid": text, "width": w, "height": h, "scale": list(scale), "domain": domain,
                 "nodes": nodes}, indent=1) + "\n")
            print(f"{name}: {w}x{h}, {len(nodes)} nodes")
    lines = []
    counts: dict[str, int] = {}
    for chart, qtype, q, a, gold in QUESTIONS:
        counts[chart] = counts.get(chart, 0) + 1
        lines.append(json.dumps({"id": f"{chart}_{counts[chart]}", "chart": chart,
                                 "image": f"charts/{chart}.png", "question": q, "answer": a,
                                 "type": qtype, "domain": CHARTS[chart][0], "gold": gold}))
    atomic_write_text(HERE / "questions.jsonl", "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
