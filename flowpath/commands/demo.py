"""``flowpath demo``: serve the browser demo (needs ``flowpath[demo]``).

    flowpath demo [--host 127.0.0.1] [--port N] [--share] [--max-upload-mb 10] ...
"""

from __future__ import annotations

import argparse

from flowpath.commands.common import add_device_argument, formatter, resolve_device


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "demo", formatter_class=formatter(),
        help="serve a browser page: upload a flowchart, ask, see the grounded path",
        description="Start the Gradio demo page (pip install 'flowpath[demo]'). Upload a chart "
                    "or pick an example, type a question and its answer, and see the attributed "
                    "nodes and path, the letter-labelled image, the node list, the reasoner's "
                    "reason and trace and the transcribed Mermaid. Each chart is parsed once. "
                    "Listens on 127.0.0.1 only unless --host says otherwise; no usage "
                    "statistics are sent and nothing is fetched from a CDN. Stop it with Ctrl-C.")
    p.add_argument("--host", default="127.0.0.1",
                   help="interface to listen on; 0.0.0.0 serves every network interface")
    p.add_argument("--port", type=int, default=None,
                   help="TCP port; unset: the first free port from 7860")
    p.add_argument("--share", action="store_true",
                   help="also open a public Gradio share link (contacts Gradio's servers)")
    p.add_argument("--max-upload-mb", type=float, default=10.0, metavar="MB",
                   help="refuse uploads larger than this many megabytes")
    p.add_argument("--max-pixels", type=int, default=None, metavar="N",
                   help="refuse images larger than N pixels; unset: flowpath.io.MAX_PIXELS "
                        "(25 Mpx), the cap of 'flowpath attribute'")
    p.add_argument("--examples", metavar="DIR", default=None,
                   help="examples folder with questions.jsonl and its images; unset: the "
                        "source checkout's examples/, if present")
    p.add_argument("--mermaid-js", metavar="FILE", default=None,
                   help="local mermaid.min.js used to draw the transcription in the page"
                        "; unset: $FLOWPATH_MERMAID_JS, else the checkout's node_modules "
                        "(without one the Mermaid is shown as text only)")
    add_device_argument(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from flowpath.demo import launch_demo

    launch_demo(host=args.host, port=args.port, share=args.share,
                max_upload_mb=args.max_upload_mb, max_pixels=args.max_pixels,
                device=resolve_device(args.device),
                examples=args.examples, mermaid_js=args.mermaid_js, block=True)
    return 0
