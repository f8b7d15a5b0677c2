"""The demo page: a Gradio ``Blocks`` app over `flowpath.demo.backend.DemoBackend`.

Upload a flowchart (or pick an example), type a question and its answer; the page shows the
attributed nodes and path on the chart, the letter-labelled image, the node list, the reasoner's
reason and trace, and the transcribed Mermaid (as text, and drawn by Mermaid in the browser when
a local ``mermaid.min.js`` is given: nothing is fetched from a CDN). Every event is also an HTTP
endpoint (``/gradio_api/...``, see the page's "Use via API" link); ``answer`` is the one that
attributes.

Gradio is imported inside the functions, so ``import flowpath.demo`` stays light and a missing
Gradio names the extra to install.
"""

from __future__ import annotations

import html
import json
import logging
import os
from pathlib import Path
from typing import Any

from flowpath.demo.backend import STAGES, DemoAnswer, DemoBackend, describe_error

logger = logging.getLogger("flowpath.demo")

__all__ = ["ANSWER_API", "build_app", "example_rows", "find_examples", "find_mermaid_js",
           "launch_demo"]

#: the API name of the attribution event (``/gradio_api/call/answer``; gradio_client
#: ``Client(url).predict(..., api_name="/answer")``)
ANSWER_API = "answer"

_REPO_ROOT = Path(__file__).resolve().parents[2]

_CSS = """
#fp-status .fp-letter{display:inline-block;min-width:1.6em;padding:0 .35em;margin:0 .15em;
  border-radius:4px;background:#0066ff;color:#fff;font-weight:700;text-align:center}
#fp-status .fp-error{color:#b00020;font-weight:600;white-space:pre-wrap}
#fp-status .fp-note{color:#666;font-size:.9em}
.fp-mermaid-view svg{max-width:100%;height:auto}
table.fp-nodes{border-collapse:collapse;width:100%;font-size:.9em}
table.fp-nodes th,table.fp-nodes td{border-bottom:1px solid #ddd;padding:.25em .5em;text-align:left}
table.fp-nodes tr.fp-chosen{background:#dbe8ff;font-weight:600}
"""

# Runs in the browser each time the Mermaid text changes: draw it with the locally served
# Mermaid (strict security: labels are text, never HTML/JS) or say why it is not drawn.
_MERMAID_JS = """
const draw = async () => {
  const box = element.querySelector('.fp-mermaid-view');
  const text = props.value || '';
  if (!text) { box.textContent = ''; return; }
  if (typeof mermaid === 'undefined') {
    box.textContent = 'Not drawn: start the demo with --mermaid-js PATH/TO/mermaid.min.js.';
    return;
  }
  mermaid.initialize({startOnLoad: false, securityLevel: 'strict'});
  try {
    const {svg} = await mermaid.render('fp-mmd-' + Date.now(), text);
    box.innerHTML = svg;
  } catch (e) {
    box.textContent = 'Mermaid could not draw this transcription: ' + (e.message || e);
  }
};
watch('value', draw);
draw();
"""


def _require_gradio() -> Any:
    from flowpath.errors import require

    require("gradio", "demo", "the flowpath demo")
    # no usage statistics or version checks leave the machine (read when gradio is imported)
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    import gradio as gr

    return gr


def find_mermaid_js(path: str | os.PathLike | None = None) -> Path | None:
    """A local ``mermaid.min.js``: ``path``, else ``FLOWPATH_MERMAID_JS``, else the npm install
    of a source checkout (``node_modules/mermaid/dist``); None when there is none.

    Raises:
        FileNotFoundError: ``path`` was given and is not a file.
    """
    if path is not None:
        p = Path(path)
        if not p.is_file():
            raise FileNotFoundError(f"--mermaid-js {p}: no such file")
        return p.resolve()
    for cand in (os.environ.get("FLOWPATH_MERMAID_JS"),
                 _REPO_ROOT / "node_modules" / "mermaid" / "dist" / "mermaid.min.js"):
        if cand and Path(cand).is_file():
            return Path(cand).resolve()
    return None


def find_examples(path: str | os.PathLike | None = None) -> Path | None:
    """The examples folder (``questions.jsonl`` + ``charts/``): ``path``, else the source
    checkout's ``examples/``; None when there is none.

    Raises:
        FileNotFoundError: ``path`` was given and holds no ``questions.jsonl``.
    """
    if path is not None:
        p = Path(path)
        if not (p / "questions.jsonl").is_file():
            raise FileNotFoundError(f"--examples {p}: no questions.jsonl in that folder")
        return p.resolve()
    p = _REPO_ROOT / "examples"
    return p if (p / "questions.jsonl").is_file() else None


def example_rows(folder: Path | None) -> list[list[str]]:
    """``[image path, question, answer]`` rows from an examples folder's ``questions.jsonl``
    (rows whose image is missing are left out)."""
    if folder is None:
        return []
    rows = []
    for line in (folder / "questions.jsonl").read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        rec = json.loads(line)
        image = folder / rec["image"]
        if image.is_file():
            rows.append([str(image), rec["question"], rec.get("answer", "")])
    return rows


def _esc(x: Any) -> str:
    return html.escape(str(x))


def _status_html(res: DemoAnswer) -> str:
    att = res.attribution
    if att.error:
        head = f"<p class='fp-error'>The reasoner failed: {_esc(att.error)}</p>"
    elif att.letters:
        chips = "".join(f"<span class='fp-letter'>{_esc(x)}</span>" for x in att.letters)
        head = f"<p><b>Attributed nodes:</b> {chips}</p>"
    else:
        head = "<p><b>Attributed nodes:</b> none (the reasoner found no grounding node)</p>"
    reason = f"<p><b>Reason:</b> {_esc(att.reason)}</p>" if att.reason else ""
    parse = ("parse reused from the cache" if res.cached
             else f"chart parsed in {att.timings.get('parse', 0.0):.2f} s")
    comps = ", ".join(f"{k} {v}" for k, v in res.components.items())
    problems = res.parsed.problems + att.problems
    probs = ("<p class='fp-note'>Noticed: " + _esc("; ".join(problems)) + "</p>") if problems else ""
    return (f"{head}{reason}{probs}<p class='fp-note'>{parse}; reasoned in "
            f"{att.timings.get('reason', 0.0):.2f} s ({_esc(comps)})</p>")


def _nodes_html(res: DemoAnswer) -> str:
    """The node list as an HTML table: letter, text, shape, and whether it was attributed.
    (A plain table: Gradio's Dataframe would load pandas, matplotlib and pyarrow on the first
    question, about a second of CPU.)"""
    chosen = set(res.attribution.node_ids)
    graph = res.parsed.graph
    ids = list(res.parsed.regions) + [n for n in graph.nodes if n not in res.parsed.regions]
    rows = []
    for n in ids:
        node = graph.nodes.get(n)
        text = node.text if node else "(not in the transcribed graph)"
        mark = " class='fp-chosen'" if n in chosen else ""
        rows.append(f"<tr{mark}><td>{_esc(n)}</td><td>{_esc(text)}</td>"
                    f"<td>{_esc(node.shape if node else '')}</td>"
                    f"<td>{'yes' if n in chosen else ''}</td></tr>")
    return ("<table class='fp-nodes'><thead><tr><th>letter</th><th>text</th><th>shape</th>"
            f"<th>attributed</th></tr></thead><tbody>{''.join(rows)}</tbody></table>")


def build_app(backend: DemoBackend, *, examples: Path | None = None,
              mermaid_js: Path | None = None) -> Any:
    """The Gradio ``Blocks`` of the demo.

    Args:
        backend: does the work (components, parse cache).
        examples: an examples folder (see `example_rows`); None: no examples.
        mermaid_js: a local ``mermaid.min.js`` served to the page to draw the transcription;
            None: the Mermaid is shown as text only. Pass its folder to ``launch(allowed_paths=)``.

    Returns:
        A ``gradio.Blocks``; start it with `launch_demo` or its own ``launch``.
    """
    gr = _require_gradio()
    mermaid_head = (f'<script src="/gradio_api/file={mermaid_js}"></script>'
                    if mermaid_js is not None else None)

    def answer(image: str | None, question: str, answer_text: str, segmenter: str,
               transcriber: str, reasoner: str) -> tuple[Any, ...]:
        try:
            res = backend.answer(image, question, answer_text, segmenter=segmenter,
                                 transcriber=transcriber, reasoner=reasoner)
        except Exception as exc:  # the page shows a message; the app keeps serving
            if not isinstance(exc, (ValueError, FileNotFoundError)):
                logger.exception("demo question failed")
            msg = describe_error(exc)
            return (f"<p class='fp-error'>{_esc(msg)}</p>", None, None, "", [], "", "")
        return (_status_html(res), res.attribution.overlay(), res.parsed.labelled_image,
                _nodes_html(res), res.attribution.trace, res.parsed.mermaid, res.parsed.mermaid)

    with gr.Blocks(title="flowpath demo", analytics_enabled=False) as app:
        gr.Markdown("# flowpath: which flowchart nodes ground a statement?\n"
                    "Upload a flowchart image (or pick an example below), type a question about "
                    "it and its answer. The chart is parsed once; further questions about the "
                    "same image reuse that parse.")
        with gr.Row():
            with gr.Column(scale=1):
                image = gr.File(label="Flowchart image", file_types=["image"], type="filepath",
                                elem_id="fp-image")
                question = gr.Textbox(label="Question", lines=2, elem_id="fp-question")
                answer_box = gr.Textbox(label="Answer", elem_id="fp-answer")
                with gr.Accordion("Components", open=False):
                    pickers = [gr.Dropdown(backend.choices[s], value=backend.defaults[s],
                                           label=s.capitalize(), elem_id=f"fp-{s}")
                               for s in STAGES]
                submit = gr.Button("Attribute", variant="primary", elem_id="fp-submit")
                status = gr.HTML("<p class='fp-note'>No question yet.</p>", elem_id="fp-status")
            with gr.Column(scale=2):
                with gr.Tabs():
                    with gr.Tab("Attributed path"):
                        overlay = gr.Image(label="Attributed nodes and path", format="png",
                                           type="numpy", interactive=False, height=640,
                                           elem_id="fp-overlay")
                    with gr.Tab("Letter-labelled image"):
                        labelled = gr.Image(label="Letter-labelled image", format="png",
                                            type="numpy", interactive=False, height=640,
                                            elem_id="fp-labelled")
                nodes = gr.HTML("", label="Nodes", elem_id="fp-nodes")
                with gr.Accordion("Reasoner trace", open=False):
                    trace = gr.JSON(label="Trace", elem_id="fp-trace")
                with gr.Accordion("Transcribed Mermaid", open=False):
                    mermaid_text = gr.Code(label="Mermaid", interactive=False, elem_id="fp-mermaid")
                    mermaid_view = gr.HTML("", html_template="<div class='fp-mermaid-view'></div>",
                                           js_on_load=_MERMAID_JS, head=mermaid_head,
                                           elem_id="fp-mermaid-view")
        rows = example_rows(examples)
        if rows:
            gr.Examples(rows, inputs=[image, question, answer_box], label="Examples",
                        examples_per_page=len(rows))
        outputs = [status, overlay, labelled, nodes, trace, mermaid_text, mermaid_view]
        inputs = [image, question, answer_box, *pickers]
        submit.click(answer, inputs, outputs, api_name=ANSWER_API)
        question.submit(answer, inputs, outputs, api_visibility="private")
    return app


def launch_demo(*, host: str = "127.0.0.1", port: int | None = None, share: bool = False,
                max_upload_mb: float = 10.0, max_pixels: int | None = None, device: str = "auto",
                examples: str | os.PathLike | None = None,
                mermaid_js: str | os.PathLike | None = None, warm_up: bool = True,
                block: bool = True) -> Any:
    """Build the backend and the page and serve it.

    Args:
        host: interface to listen on (``0.0.0.0`` exposes it to the network).
        port: TCP port (None: the first free one from 7860).
        share: ask Gradio for a public share link (this contacts Gradio's servers).
        max_upload_mb: largest accepted upload, in megabytes.
        max_pixels: largest accepted image, in pixels (default `flowpath.io.MAX_PIXELS`).
        device: torch device for learned components.
        examples: examples folder (default: the source checkout's ``examples/``).
        mermaid_js: local ``mermaid.min.js`` (default: `find_mermaid_js`).
        warm_up: start the default components on a drawn chart before serving
            (`DemoBackend.warm_up`), so the first question is answered at full speed.
        block: serve until interrupted; False returns the running app (``app.close()`` stops it).

    Returns:
        The launched ``gradio.Blocks``.
    """
    if max_upload_mb <= 0:
        raise ValueError(f"--max-upload-mb must be positive, got {max_upload_mb}")
    gr = _require_gradio()
    backend = DemoBackend(max_pixels=max_pixels, device=device)
    if warm_up:
        logger.info("components warmed up in %.2f s", backend.warm_up())
        # Gradio sets matplotlib's backend around every event (gradio.utils.
        # MatplotlibBackendMananger), importing matplotlib on the first one: about half a
        # second of CPU better spent before the first question than during it
        manager = getattr(gr.utils, "MatplotlibBackendMananger", None)
        if manager is not None:
            with manager():
                pass
    js = find_mermaid_js(mermaid_js)
    app = build_app(backend, examples=find_examples(examples), mermaid_js=js)
    app.queue(default_concurrency_limit=1)  # one question at a time: the machine's cores go to it
    app.launch(server_name=host, server_port=port, share=share, inbrowser=False,
               max_file_size=int(max_upload_mb * 1024 * 1024), show_error=False,
               allowed_paths=[str(js.parent)] if js else None, prevent_thread_lock=not block,
               ssr_mode=False, theme=gr.themes.Default(), css=_CSS, quiet=not block)
    return app
