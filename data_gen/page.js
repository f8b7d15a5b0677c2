// Browser half of data_gen's Mermaid renderer. Loaded once into a long-lived page next to
// node_modules/mermaid/dist/mermaid.min.js; Python calls window.fpRender(request) per chart.
//
// It renders with the real Mermaid, injects the style CSS (id-prefixed so it wins over
// Mermaid's own #id rules), measures every node/edge/cluster in root-SVG user units (all
// transforms applied by the browser's own CTMs), and optionally "bakes" the computed style
// into inline attributes so that cairosvg sees plain rgb() colours: cairosvg paints hsl()/var()
// black and does not understand Mermaid's stylesheet cascade reliably.
(function () {
  "use strict";

  const BAKE_PROPS = [
    "fill", "fill-opacity", "stroke", "stroke-width", "stroke-opacity", "stroke-dasharray",
    "stroke-linecap", "stroke-linejoin", "opacity", "font-family", "font-size", "font-weight",
    "font-style", "text-anchor", "dominant-baseline", "alignment-baseline", "display",
    "visibility",
    // gradient stops: Graphviz writes their colours in a style attribute, which baking replaces
    // (without these every Graphviz gradient fill is painted black)
    "stop-color", "stop-opacity",
  ];
  const SHAPE_TAGS = new Set(["rect", "polygon", "polyline", "circle", "ellipse", "path", "line"]);

  function toRoot(el, root) {
    // Matrix from el's user space to the root <svg>'s user space (= viewBox units).
    const m = root.getScreenCTM().inverse().multiply(el.getScreenCTM());
    return (x, y) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f];
  }

  function matrixOf(el, root) {
    const m = root.getScreenCTM().inverse().multiply(el.getScreenCTM());
    return [m.a, m.b, m.c, m.d, m.e, m.f];
  }

  function samplePath(el, map, lo = 24, hi = 300, step = 2) {
    // lo..hi points, one per `step` units of length
    const total = el.getTotalLength();
    const n = Math.max(lo, Math.min(hi, Math.ceil(total / step)));
    const pts = [];
    for (let i = 0; i <= n; i++) {
      const p = el.getPointAtLength((total * i) / n);
      pts.push(map(p.x, p.y));
    }
    return pts;
  }

  function shapePoints(el, root) {
    const map = toRoot(el, root);
    const tag = el.tagName.toLowerCase();
    const num = (a) => parseFloat(el.getAttribute(a) || "0");
    if (tag === "polygon" || tag === "polyline") {
      const pts = [];
      for (const p of el.points) pts.push(map(p.x, p.y));
      return {tag, pts, nsub: 1};
    }
    if (tag === "rect") {
      const x = num("x"), y = num("y"), w = num("width"), h = num("height");
      const rx = Math.min(parseFloat(el.getAttribute("rx") || el.getAttribute("ry") || "0"), w / 2, h / 2);
      if (rx > 0.5) {
        // rounded rect: sample the quarter circles
        const pts = [];
        const corners = [[x + w - rx, y + rx, -90], [x + w - rx, y + h - rx, 0], [x + rx, y + h - rx, 90], [x + rx, y + rx, 180]];
        for (const [cx, cy, a0] of corners) {
          for (let k = 0; k <= 6; k++) {
            const a = ((a0 + (90 * k) / 6) * Math.PI) / 180;
            pts.push(map(cx + rx * Math.cos(a), cy + rx * Math.sin(a)));
          }
        }
        return {tag, pts, nsub: 1};
      }
      return {tag, pts: [map(x, y), map(x + w, y), map(x + w, y + h), map(x, y + h)], nsub: 1};
    }
    if (tag === "circle" || tag === "ellipse") {
      const cx = num("cx"), cy = num("cy");
      const rx = tag === "circle" ? num("r") : num("rx");
      const ry = tag === "circle" ? num("r") : num("ry");
      const pts = [];
      for (let k = 0; k < 64; k++) {
        const a = (2 * Math.PI * k) / 64;
        pts.push(map(cx + rx * Math.cos(a), cy + ry * Math.sin(a)));
      }
      return {tag, pts, nsub: 1};
    }
    if (tag === "path") {
      // Sampling with getPointAtLength costs ~0.1 ms a call and dominated the render time; the
      // path data and its matrix go to Python instead, where svgelements samples it exactly.
      const d = el.getAttribute("d") || "";
      const nsub = (d.match(/[Mm]/g) || []).length;
      return {tag, pts: [], d, m: matrixOf(el, root), nsub};
    }
    if (tag === "line") {
      return {tag, pts: [map(num("x1"), num("y1")), map(num("x2"), num("y2"))], nsub: 1};
    }
    return null;
  }

  function boxOf(el, root) {
    // Axis-aligned box of el's own bbox corners mapped into root units.
    let b;
    try { b = el.getBBox(); } catch (e) { return null; }
    if (!b || (b.width === 0 && b.height === 0)) return null;
    const map = toRoot(el, root);
    const c = [map(b.x, b.y), map(b.x + b.width, b.y), map(b.x + b.width, b.y + b.height), map(b.x, b.y + b.height)];
    const xs = c.map((p) => p[0]), ys = c.map((p) => p[1]);
    return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
  }

  function textOf(el) {
    // One string per rendered line (outer tspan), joined with "\n".
    const outers = el.querySelectorAll("tspan.text-outer-tspan");
    if (outers.length) return Array.from(outers).map((t) => t.textContent.trim()).join("\n");
    return (el.textContent || "").trim();
  }

  // Mermaid 11's SVG labels (htmlLabels off) keep the entities its sanitiser wrote: the label
  // `i < n` was drawn as the letters "i &lt; n" and `print("x")` as "print(&quot;x&quot;)";
  // a browser (htmlLabels on) draws the characters, so they are put back
  const ENTITIES = {"&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'", "&#x27;": "'", "&amp;": "&"};
  const ENTITY_RE = /&(?:lt|gt|quot|#39|#x27|amp);/g;

  function mergeTspans(root) {
    // Mermaid writes one inner <tspan> per word; cairosvg anchors each tspan on its own, so a
    // centred line would pile its words on top of each other. One text run per line fixes it.
    const runs = [];
    for (const outer of root.querySelectorAll("tspan.text-outer-tspan")) {
      const inner = outer.querySelectorAll("tspan");
      if (!inner.length) continue;
      const first = inner[0];
      const txt = Array.from(inner).map((t) => t.textContent).join("").replace(/\s+/g, " ").trim();
      for (const t of inner) if (t !== first) t.remove();
      runs.push({outer, first, txt});
    }
    // an entity Mermaid wrapped across two lines ("&q" / "uot;") is put back on the first
    for (let i = 0; i + 1 < runs.length; i++) {
      const a = runs[i], b = runs[i + 1];
      if (a.outer.parentNode !== b.outer.parentNode) continue;
      const head = /&#?\w*$/.exec(a.txt);
      if (!head) continue;
      const tail = Object.keys(ENTITIES).map((e) => e.slice(head[0].length))
        .find((t, k) => Object.keys(ENTITIES)[k].startsWith(head[0]) && t && b.txt.startsWith(t));
      if (tail === undefined) continue;
      a.txt += tail;
      b.txt = b.txt.slice(tail.length).trim();
    }
    for (const r of runs) r.first.textContent = r.txt.replace(ENTITY_RE, (e) => ENTITIES[e]);
  }

  function bake(root) {
    // getComputedStyle objects are live: read every value first, then write (removing a
    // class before reading a descendant would change what it computes).
    const all = [root, ...root.querySelectorAll("*")];
    const values = all.map((el) => {
      const cs = window.getComputedStyle(el);
      const parts = [];
      for (const p of BAKE_PROPS) {
        const v = cs.getPropertyValue(p);
        if (v !== "" && v !== "normal" && v !== "auto") parts.push(p + ":" + v.replace(/"/g, "'"));
      }
      return parts.join(";");
    });
    all.forEach((el, i) => {
      const tag = el.tagName.toLowerCase();
      if (tag === "style" || tag === "defs" || tag === "title" || tag === "desc") return;
      // presentation attributes (rough.js writes stroke="hsl(...)") are now in the style
      for (const p of BAKE_PROPS) el.removeAttribute(p);
      el.setAttribute("style", values[i]);
      el.removeAttribute("filter");
      el.removeAttribute("class");
    });
    for (const s of root.querySelectorAll("style")) s.remove();
  }

  function edgeEnds(dataId, nodeIds) {
    // "L_<src>_<dst>_<k>": ids may contain "_", so try every split against the known ids.
    const m = /^L_(.*)_(\d+)$/.exec(dataId || "");
    if (!m) return [null, null, 0];
    const body = m[1];
    const parts = body.split("_");
    for (let i = 1; i < parts.length; i++) {
      const s = parts.slice(0, i).join("_"), t = parts.slice(i).join("_");
      if (nodeIds.has(s) && nodeIds.has(t)) return [s, t, parseInt(m[2], 10)];
    }
    return [parts[0], parts.slice(1).join("_"), parseInt(m[2], 10)];
  }

  function rand(seed) {
    // mulberry32: a seeded generator, so a chart's stroke effects are reproducible
    let a = seed >>> 0;
    return () => {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  function addGradients(root, grads) {
    // vertical light -> colour -> darker fills for the "wild" family; CSS refers to them by id
    if (!grads || !grads.length) return;
    const NS = "http://www.w3.org/2000/svg";
    const defs = document.createElementNS(NS, "defs");
    for (const g of grads) {
      const lg = document.createElementNS(NS, "linearGradient");
      lg.setAttribute("id", g.id);
      lg.setAttribute("x1", "0"); lg.setAttribute("y1", "0"); lg.setAttribute("x2", "0"); lg.setAttribute("y2", "1");
      g.stops.forEach((c, i) => {
        const st = document.createElementNS(NS, "stop");
        st.setAttribute("offset", String(i / (g.stops.length - 1)));
        st.setAttribute("stop-color", c);
        lg.appendChild(st);
      });
      defs.appendChild(lg);
    }
    root.insertBefore(defs, root.firstChild);
  }

  function handStrokes(root, hand) {
    // Pen effects the rough.js look lacks: a gap left in each node outline, arrows that stop
    // short of their source box, and letters that wobble off the baseline. They change pixels
    // only: node outlines and edge geometry are measured from the same elements as always.
    if (!hand || !hand.seed) return;
    if (hand.head === "circle" || hand.head === "dot") {
      // the arrowhead drawn as a ring (the CSS leaves it unfilled) or a dot at the line's end,
      // just touching the node as the triangle's tip did (marker viewBox 0 0 10 10, tip at x 10)
      for (const p of root.querySelectorAll("marker[id$='pointEnd'] path, marker[id$='pointStart'] path")) {
        p.setAttribute("d", "M 2 5 A 4 4 0 1 0 10 5 A 4 4 0 1 0 2 5 Z");
      }
    }
    const rnd = rand(hand.seed);
    if (hand.corner_gap > 0) {
      for (const el of root.querySelectorAll(":is(g.node, g.rough-node) :is(path, rect, polygon, circle, ellipse)")) {
        let len = 0;
        try { len = el.getTotalLength(); } catch (e) { continue; }
        if (!(len > 4 * hand.corner_gap)) continue;
        const gap = hand.corner_gap * (0.6 + 0.8 * rnd());
        el.style.setProperty("stroke-dasharray", `${len - gap} ${gap}`, "important");
        el.style.setProperty("stroke-dashoffset", String(len * rnd()), "important");
      }
    }
    if (hand.short > 0) {
      for (const p of root.querySelectorAll("path.flowchart-link, path[data-edge='true']")) {
        let len = 0;
        try { len = p.getTotalLength(); } catch (e) { continue; }
        const g = hand.short * (0.5 + rnd());
        if (len > 4 * g) p.style.setProperty("stroke-dasharray", `0 ${g} ${len} ${len}`, "important");
      }
    }
    if (hand.wobble > 0) {
      for (const t of root.querySelectorAll("text tspan, text")) {
        if (t.querySelector && t.querySelector("tspan")) continue;  // only leaf runs
        const n = (t.textContent || "").length;
        if (!n || n > 400) continue;
        const rot = [];
        for (let i = 0; i < n; i++) rot.push(((rnd() - 0.5) * 2 * hand.wobble).toFixed(1));
        t.setAttribute("rotate", rot.join(" "));
        if (!t.getAttribute("dy")) {
          // a slow baseline drift with per-letter jitter (dy is relative, so send differences)
          const phase = rnd() * 6.28, freq = 0.2 + 0.3 * rnd();
          let prev = 0;
          const dy = [];
          // a first-character dy on the leaf overrides the enclosing line tspan's own dy
          // (Mermaid's "1.1em"), so carry that offset over in px
          const par = t.parentElement;
          let base = 0;
          if (par && par.tagName.toLowerCase() === "tspan" && par.firstElementChild === t && par.getAttribute("dy")) {
            const v = par.getAttribute("dy");
            const em = parseFloat(window.getComputedStyle(t).fontSize) || 16;
            base = v.endsWith("em") ? parseFloat(v) * em : parseFloat(v) || 0;
          }
          prev = -base;
          for (let i = 0; i < n; i++) {
            const y = hand.wobble * 0.6 * Math.sin(phase + freq * i) + (rnd() - 0.5) * hand.wobble * 0.5;
            dy.push((y - prev).toFixed(2));
            prev = y;
          }
          t.setAttribute("dy", dy.join(" "));
        }
      }
    }
  }

  window.fpRender = async function (req) {
    const host = document.getElementById("host");
    host.innerHTML = "";
    try {
      mermaid.initialize(req.config);
    } catch (e) {
      return {error: "mermaid.initialize: " + (e && e.message ? e.message : String(e))};
    }
    let out;
    const t0 = performance.now();
    try {
      out = await mermaid.render(req.id, req.text);
    } catch (e) {
      // Mermaid leaves its error graphic in the body; drop it so the page stays clean.
      for (const el of document.querySelectorAll("body > [id^='d" + req.id + "'], body > #" + req.id)) el.remove();
      return {error: (e && e.message ? e.message : String(e)).trim()};
    }
    const t1 = performance.now();
    host.innerHTML = out.svg;
    const root = host.querySelector("svg");
    if (req.css) {
      const st = document.createElementNS("http://www.w3.org/2000/svg", "style");
      st.textContent = req.css;
      root.appendChild(st);
    }
    mergeTspans(root);
    const opts = req.page || {};
    addGradients(root, opts.gradients);
    handStrokes(root, opts.hand);
    const vb = root.viewBox.baseVal;
    // Show the SVG at 1 CSS px per viewBox unit, so measurements and screenshots agree.
    root.removeAttribute("style");
    root.setAttribute("width", String(vb.width));
    root.setAttribute("height", String(vb.height));

    const nodes = [];
    const nodeIds = new Set();
    // classic look: g.node; handDrawn look: g.rough-node
    for (const g of root.querySelectorAll("g.node, g.rough-node")) {
      const m = /^(?:.*?-)?flowchart-(.+)-(\d+)$/.exec(g.id || "");
      const nid = m ? m[1] : (g.getAttribute("data-id") || g.id);
      nodeIds.add(nid);
      let cont = g.querySelector(":scope > .label-container") || g.querySelector(".label-container");
      let els;
      if (!cont) {
        // handDrawn rhombus/circle groups carry no label-container class: every shape outside
        // the label belongs to the outline (sketch strokes and hachure fill included)
        els = Array.from(g.querySelectorAll("*")).filter((c) =>
          SHAPE_TAGS.has(c.tagName.toLowerCase()) && !c.closest("g.label"));
      } else if (SHAPE_TAGS.has(cont.tagName.toLowerCase())) {
        els = [cont];
      } else {
        els = Array.from(cont.querySelectorAll("*")).filter((c) => SHAPE_TAGS.has(c.tagName.toLowerCase()));
      }
      // rough.js (Mermaid 11 stadium/hexagon/round/...) draws a closed fill path plus a stroke
      // path of ~200 sub-paths retracing the same outline; sampling the latter dominated the
      // measuring time and adds nothing, so with a single-piece path present it is skipped
      const nsubOf = (e) => ((e.getAttribute("d") || "").match(/[Mm]/g) || []).length;
      const hasClosed = els.some((e) => e.tagName.toLowerCase() === "path" && nsubOf(e) === 1);
      if (hasClosed) els = els.filter((e) => e.tagName.toLowerCase() !== "path" || nsubOf(e) <= 2);
      const shapes = els.map((e) => shapePoints(e, root)).filter((s) => s && (s.pts.length || s.d));
      const label = g.querySelector("g.label");
      nodes.push({id: nid, dom_id: g.id, shapes, text: label ? textOf(label) : "",
                  label_box: label ? boxOf(label, root) : null});
    }
    const labelBoxes = {};
    for (const lg of root.querySelectorAll("g.edgeLabel g.label[data-id]")) {
      labelBoxes[lg.getAttribute("data-id")] = {text: textOf(lg), box: lg.textContent.trim() ? boxOf(lg, root) : null};
    }
    const edges = [];
    for (const p of root.querySelectorAll("path.flowchart-link, path[data-edge='true']")) {
      const did = p.getAttribute("data-id") || p.id;
      const [s, t, k] = edgeEnds(did, nodeIds);
      const pts = [];  // sampled in Python from d + m
      const cls = p.getAttribute("class") || "";
      const lab = labelBoxes[did] || {text: "", box: null};
      edges.push({id: did, source: s, target: t, index: k, points: pts,
                  d: p.getAttribute("d") || "", m: matrixOf(p, root),
                  thickness: (/edge-thickness-(\w+)/.exec(cls) || [null, "normal"])[1],
                  pattern: (/edge-pattern-(\w+)/.exec(cls) || [null, "solid"])[1],
                  label: lab.text || null, label_box: lab.box,
                  marker_end: p.getAttribute("marker-end"), marker_start: p.getAttribute("marker-start")});
    }
    const clusters = [];
    for (const c of root.querySelectorAll("g.cluster")) {
      const r = c.querySelector(":scope > rect") || c.querySelector("rect, path, polygon");
      const lab = c.querySelector(".cluster-label");
      clusters.push({id: c.id, box: r ? boxOf(r, root) : boxOf(c, root), title: lab ? textOf(lab) : ""});
    }
    const t2 = performance.now();
    if (req.bake) bake(root);
    const t3 = performance.now();
    const svg = new XMLSerializer().serializeToString(root);
    const t4 = performance.now();
    return {svg, viewBox: [vb.x, vb.y, vb.width, vb.height], nodes, edges, clusters,
            timing: {mermaid: t1 - t0, measure: t2 - t1, bake: t3 - t2, serialize: t4 - t3}};
  };

  function showSvg(text) {
    // Put an engine's SVG into the page at 1 CSS px per viewBox unit (as fpRender does).
    const host = document.getElementById("host");
    host.innerHTML = text;
    const root = host.querySelector("svg");
    const vb = root.viewBox.baseVal;
    // PlantUML sizes its SVG by an inline style ("width:445px;height:...;background:..."),
    // which would beat the width/height the screenshot sets: keep only the background
    const bg = root.style.background;
    root.removeAttribute("style");
    if (bg) root.style.background = bg;
    root.setAttribute("width", String(vb.width));
    root.setAttribute("height", String(vb.height));
    return [root, vb];
  }

  function unionBox(els, root) {
    let lb = null;
    for (const t of els) {
      const b = boxOf(t, root);
      if (!b) continue;
      lb = lb ? [Math.min(lb[0], b[0]), Math.min(lb[1], b[1]), Math.max(lb[2], b[2]), Math.max(lb[3], b[3])] : b;
    }
    return lb;
  }

  function edgePoints(p, root) {
    // up to 41 points along an engine's edge path, in root units
    return samplePath(p, toRoot(p, root), 2, 40, 10);
  }

  // Graphviz (dot -Tsvg) output: <g class="node"><title>id</title><polygon|ellipse|path>
  // <text>...</g>, <g class="edge"><title>a&#45;&gt;b</title><path/><polygon/><text/></g>.
  window.fpMeasureGraphviz = function (req) {
    const [root, vb] = showSvg(req.svg);
    const nodes = [];
    for (const g of root.querySelectorAll("g.node")) {
      const title = g.querySelector("title");
      const els = Array.from(g.children).filter((c) => SHAPE_TAGS.has(c.tagName.toLowerCase()));
      const shapes = els.map((e) => shapePoints(e, root)).filter((s) => s && (s.pts.length || s.d));
      const texts = Array.from(g.querySelectorAll("text"));
      const lb = unionBox(texts, root);
      nodes.push({id: title ? title.textContent.trim() : g.id, dom_id: g.id, shapes,
                  text: texts.map((t) => t.textContent.trim()).join("\n"), label_box: lb});
    }
    const edges = [];
    for (const g of root.querySelectorAll("g.edge")) {
      const title = (g.querySelector("title") || {}).textContent || "";
      const [s, t] = title.split("->");
      const p = g.querySelector("path");
      if (!p) continue;
      const pts = edgePoints(p, root);
      const head = g.querySelector("polygon");
      if (head) {
        // the arrowhead tip is where the edge really ends
        const hp = shapePoints(head, root).pts;
        const last = pts[pts.length - 1];
        let best = hp[0], bd = -1;
        for (const q of hp) { const d = Math.hypot(q[0] - pts[0][0], q[1] - pts[0][1]); if (d > bd) { bd = d; best = q; } }
        if (best) pts.push(best); else pts.push(last);
      }
      const txt = g.querySelector("text");
      edges.push({id: g.id, source: (s || "").trim(), target: (t || "").trim(), index: 0, points: pts,
                  thickness: "normal", pattern: (p.getAttribute("stroke-dasharray") ? "dotted" : "solid"),
                  label: txt ? txt.textContent.trim() : null, label_box: txt ? boxOf(txt, root) : null,
                  marker_end: head ? "point" : null, marker_start: null});
    }
    const clusters = [];
    for (const c of root.querySelectorAll("g.cluster")) {
      const title = c.querySelector("title");
      const txt = c.querySelector("text");
      const shp = c.querySelector("polygon, path");
      clusters.push({id: title ? title.textContent.trim() : c.id, box: shp ? boxOf(shp, root) : null,
                     title: txt ? txt.textContent.trim() : ""});
    }
    bake(root);
    return {svg: new XMLSerializer().serializeToString(root), viewBox: [vb.x, vb.y, vb.width, vb.height],
            nodes, edges, clusters};
  };

  // PlantUML (-tsvg) activity diagrams: no groups. Entities first, in first-mention order (the
  // caller passes it), each one shape then its <text> lines; then per link a <path id="A->B">,
  // its arrowhead <polygon> and its label <text>s. The SVG is kept live (not baked): PlantUML's
  // own shadow filters and gradients then reach the browser's screenshot.
  window.fpMeasurePlantuml = function (req) {
    const [root, vb] = showSvg(req.svg);
    const g = root.querySelector(":scope > g") || root;
    const items = Array.from(g.children);
    const ents = [], links = [];
    let cur = null;
    for (const el of items) {
      const tag = el.tagName.toLowerCase();
      if (tag === "path" && (el.getAttribute("id") || "").includes("->")) {
        cur = {kind: "link", path: el, head: null, texts: []};
        links.push(cur);
      } else if (cur && cur.kind === "link") {
        if (tag === "polygon" && !cur.head) cur.head = el;
        else if (tag === "text") cur.texts.push(el);
      } else if (SHAPE_TAGS.has(tag)) {
        cur = {kind: "entity", shape: el, texts: []};
        ents.push(cur);
      } else if (tag === "text" && cur) {
        cur.texts.push(el);
      }
    }
    const nodes = ents.map((e, i) => ({
      id: req.order[i] !== undefined ? req.order[i] : "?" + i, dom_id: "", shapes: [shapePoints(e.shape, root)],
      text: e.texts.map((t) => t.textContent.trim()).join("\n"), label_box: unionBox(e.texts, root)}));
    const edges = links.map((l, k) => {
      const [s, t] = l.path.getAttribute("id").split("->");
      const pts = edgePoints(l.path, root);
      if (l.head) {
        // the arrowhead's first point is its tip: where the link really ends
        const hp = shapePoints(l.head, root).pts;
        if (hp.length) pts.push(hp[0]);
      }
      return {id: l.path.getAttribute("id"), alias: [s, t], index: k, points: pts, thickness: "normal",
              pattern: "solid", label: l.texts.map((x) => x.textContent.trim()).join(" ") || null,
              label_box: unionBox(l.texts, root), marker_end: l.head ? "point" : null, marker_start: null};
    });
    return {svg: new XMLSerializer().serializeToString(root), viewBox: [vb.x, vb.y, vb.width, vb.height],
            nodes, edges, clusters: []};
  };

  // flowchart.js (Raphael, flat SVG): symbols carry their key as id (shape), key + "t" (text),
  // key + "i" (a subroutine's inner box); connectors have no ids, so each is tagged here as
  // flowchart.js draws it: its symbols' keys, and the label texts drawn in the same call.
  function hookFlowchartjs() {
    const Sym = window.fpFlowchartRequire("src/flowchart.symbol");
    if (Sym.prototype.fpHooked) return;
    const draw = Sym.prototype.drawLineTo;
    Sym.prototype.drawLineTo = function (symbol, text, origin) {
      const canvas = this.chart.paper.canvas;
      const before = new Set(canvas.querySelectorAll("text"));
      const n0 = this.chart.lines.length;
      const res = draw.apply(this, arguments);
      if (this.chart.lines.length > n0) {
        const line = this.chart.lines[this.chart.lines.length - 1];
        line.node.setAttribute("data-fp-edge", this.key + "->" + symbol.key);
        line.fpLabels = Array.from(canvas.querySelectorAll("text")).filter((t) => !before.has(t));
      }
      return res;
    };
    Sym.prototype.fpHooked = true;
  }

  window.fpRenderFlowchartjs = function (req) {
    const host = document.getElementById("host");
    host.innerHTML = "";
    let chart;
    try {
      hookFlowchartjs();
      chart = flowchart.parse(req.source);
      chart.drawSVG(host, req.options);
    } catch (e) {
      host.innerHTML = "";
      return {error: "flowchart.js: " + (e && e.message ? e.message : String(e))};
    }
    const root = host.querySelector("svg");
    root.setAttribute("id", req.id);
    if (req.css) {
      const st = document.createElementNS("http://www.w3.org/2000/svg", "style");
      st.textContent = req.css;
      root.appendChild(st);
    }
    const vb = root.viewBox.baseVal;
    root.removeAttribute("style");
    root.style.background = req.background || "#ffffff";
    root.setAttribute("width", String(vb.width));
    root.setAttribute("height", String(vb.height));
    const byId = (id) => root.querySelector(`[id="${id}"]`);
    const nodes = [];
    for (const s of chart.diagram.symbols) {
      const els = [byId(s.key), byId(s.key + "i")].filter((e) => e);
      const txt = byId(s.key + "t");
      const lines = txt ? Array.from(txt.querySelectorAll("tspan")).map((t) => t.textContent.trim()).filter((t) => t) : [];
      nodes.push({id: s.key, dom_id: s.key, shapes: els.map((e) => shapePoints(e, root)).filter((x) => x),
                  text: lines.length ? lines.join("\n") : (txt ? txt.textContent.trim() : ""),
                  label_box: txt ? boxOf(txt, root) : null});
    }
    const edges = [];
    for (const line of chart.diagram.lines) {
      const p = line.node;
      const tag = p.getAttribute("data-fp-edge");
      if (!tag) continue;
      const [s, t] = tag.split("->");
      const pts = edgePoints(p, root);
      // Raphael shortens the drawn path by its arrowhead; the path as given ends at the tip
      const seg = line.attr("path");
      const last = seg[seg.length - 1];
      if (last && last.length >= 3) pts.push(toRoot(p, root)(last[last.length - 2], last[last.length - 1]));
      const labels = line.fpLabels || [];
      const width = parseFloat(p.getAttribute("stroke-width") || "0");
      edges.push({id: tag, source: s, target: t, index: edges.length, points: pts,
                  thickness: width > 1.5 * req.options["line-width"] ? "thick" : "normal",
                  pattern: p.getAttribute("stroke-dasharray") ? "dotted" : "solid",
                  label: labels.map((x) => x.textContent.trim()).join(" ") || null,
                  label_box: unionBox(labels, root), marker_end: "point", marker_start: null});
    }
    return {svg: new XMLSerializer().serializeToString(root), viewBox: [vb.x, vb.y, vb.width, vb.height],
            nodes, edges, clusters: []};
  };

  // D2 (npm @terrastruct/d2: D2 compiled to WASM, run in a module worker by its own wrapper;
  // window.D2 is set by data_gen.d2.browser_module). D2's SVG is flat: every shape and every
  // connection is a <g> whose first class is the base64 of its D2 id ("g0.n3",
  // "(g0.n3 -> n5)[0]", HTML-escaped), shapes inside g.shape, the label a <text> beside it.
  const d2Fonts = {};
  window.fpLoadD2Font = function (req) { d2Fonts[req.key] = req.data; };

  function d2Key(g) {
    const cls = (g.getAttribute("class") || "").trim().split(/\s+/)[0];
    try {
      return atob(cls).replace(/&gt;/g, ">").replace(/&lt;/g, "<").replace(/&#34;/g, '"').replace(/&amp;/g, "&");
    } catch (e) {
      return null;
    }
  }

  function markerReach(p, attr, root) {
    // How far past the path's end (or before its start) the marker's tip reaches, in root units:
    // D2 ends a connection at the marker's refX, its tip lies further on along the line.
    const ref = /url\(['"]?#([^'")]+)/.exec(p.getAttribute(attr) || "");
    const mk = ref ? root.querySelector(`[id="${ref[1]}"]`) : null;
    if (!mk) return null;
    const vbw = mk.viewBox.baseVal && mk.viewBox.baseVal.width ? mk.viewBox.baseVal.width : 0;
    const s = vbw ? parseFloat(mk.getAttribute("markerWidth") || "0") / vbw : 1;
    const refX = parseFloat(mk.getAttribute("refX") || "0");
    let far = refX, near = refX;
    for (const el of mk.querySelectorAll("polygon, path, circle, ellipse, rect, polyline")) {
      let b;
      try { b = el.getBBox(); } catch (e) { continue; }
      far = Math.max(far, b.x + b.width);
      near = Math.min(near, b.x);
    }
    // marker-end points along the path (tip = far side), marker-start back along it (near side)
    return (attr === "marker-end" ? far - refX : refX - near) * s;
  }

  function extendEnd(pts, reach, atEnd) {
    // move the path's end point `reach` units further along its last (first) segment
    if (!reach || pts.length < 2) return;
    const n = pts.length;
    const a = atEnd ? pts[n - 1] : pts[0];
    let k = atEnd ? n - 2 : 1;
    while (k >= 0 && k < n && Math.hypot(pts[k][0] - a[0], pts[k][1] - a[1]) < 1e-3) k += atEnd ? -1 : 1;
    if (k < 0 || k >= n) return;
    const q = pts[k], len = Math.hypot(a[0] - q[0], a[1] - q[1]);
    const tip = [a[0] + ((a[0] - q[0]) / len) * reach, a[1] + ((a[1] - q[1]) / len) * reach];
    if (atEnd) pts.push(tip); else pts.unshift(tip);
  }

  window.fpRenderD2 = async function (req) {
    const host = document.getElementById("host");
    host.innerHTML = "";
    let svg;
    try {
      if (!window.fpD2) window.fpD2 = new D2();
      const opts = {...req.options};
      for (const [role, key] of Object.entries(req.fonts || {})) opts[role] = d2Fonts[key];
      const c = await window.fpD2.compile(req.source, opts);
      svg = await window.fpD2.render(c.diagram, {...c.renderOptions, ...req.render});
    } catch (e) {
      return {error: "d2: " + (e && e.message ? e.message : String(e))};
    }
    const [root, vb] = showSvg(svg);
    root.setAttribute("id", req.id);
    if (req.css) {
      const st = document.createElementNS("http://www.w3.org/2000/svg", "style");
      st.textContent = req.css;
      root.appendChild(st);
    }
    const nodeKeys = new Set(req.nodes), clusterKeys = new Set(req.clusters);
    const nodes = [], edges = [], clusters = [];
    const linkRe = /^(?:(.*)\.)?\((.+?) (->|<->|<-|--) (.+?)\)\[(\d+)\]$/;
    let k = 0;
    for (const g of root.querySelectorAll("g[class]")) {
      const key = d2Key(g);
      if (key === null) continue;
      const texts = Array.from(g.querySelectorAll(":scope > text"));
      const lines = texts.flatMap((t) => {
        const ts = Array.from(t.querySelectorAll("tspan")).map((x) => x.textContent.trim()).filter((x) => x);
        return ts.length ? ts : [t.textContent.trim()];
      });
      if (nodeKeys.has(key) || clusterKeys.has(key)) {
        g.setAttribute("id", `${req.id}-s${k++}`);  // for data_gen.verify's per-node masks
        const els = Array.from(g.querySelectorAll(":scope > g.shape > *")).filter((c) => SHAPE_TAGS.has(c.tagName.toLowerCase()));
        const shapes = els.map((e) => shapePoints(e, root)).filter((x) => x && (x.pts.length || x.d));
        if (clusterKeys.has(key)) {
          clusters.push({id: key, box: unionBox(els, root), title: lines.join(" ")});
        } else {
          nodes.push({id: key, dom_id: g.id, shapes, text: lines.join("\n"), label_box: unionBox(texts, root)});
        }
        continue;
      }
      const m = linkRe.exec(key);
      const p = g.querySelector("path.connection");
      if (!m || !p) continue;
      const scope = m[1] ? m[1] + "." : "";
      const pts = edgePoints(p, root);
      extendEnd(pts, markerReach(p, "marker-end", root), true);
      extendEnd(pts, markerReach(p, "marker-start", root), false);
      const dash = p.style.strokeDasharray || p.getAttribute("stroke-dasharray") || "";
      const width = parseFloat(p.style.strokeWidth || p.getAttribute("stroke-width") || "0");
      const head = (el) => el ? (el.querySelector("circle") ? "circle" : "point") : null;
      const mkOf = (attr) => {
        const r = /url\(['"]?#([^'")]+)/.exec(p.getAttribute(attr) || "");
        return r ? root.querySelector(`[id="${r[1]}"]`) : null;
      };
      edges.push({id: key, source: scope + m[2], target: scope + m[4], index: parseInt(m[5], 10), points: pts,
                  thickness: width > 1.5 * req.edgeWidth ? "thick" : "normal",
                  pattern: dash && dash !== "none" ? "dotted" : "solid",
                  label: lines.join(" ") || null, label_box: unionBox(texts, root),
                  marker_end: head(mkOf("marker-end")), marker_start: head(mkOf("marker-start"))});
    }
    return {svg: new XMLSerializer().serializeToString(root), viewBox: [vb.x, vb.y, vb.width, vb.height],
            nodes, edges, clusters};
  };

  window.fpReady = true;
})();
