"""Matching of statement text to flowchart node texts.

A node is scored against a piece of text (question or answer) by IDF-weighted token overlap
over light-stemmed tokens, blended with rapidfuzz similarity so that near-verbatim quotes and
short code identifiers (``self.send``) still match when tokenisation disagrees. The IDF is
computed over the chart's own nodes, so words every node shares ("the", "step", "process")
weigh little and a chart-specific word ("baffle") weighs a lot. With a text encoder (the
``semantic`` extra, `flowpath.reason.semantic`) sentence-embedding similarity is blended in
(`SemanticBlend`), so paraphrases that share no word still match.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from rapidfuzz import fuzz, process

_TOKEN = re.compile(r"[a-z0-9]+")

# Function words and flowchart boilerplate that never identify a node.
STOPWORDS = frozenset(
    """a an the and or of to in on at for by with from into onto as is are was were be been being
    it its this that these those there here then than so if else when while whether do does did
    done doing can could should would will shall may might must i you he she we they me my your
    our their his her them us what which who whom whose how why where not no yes node nodes step
    steps process decision input output flowchart chart function current currently
    next previous action task has have had just about up down out over after before any all each
    every some same such only also very""".split()
)

# Negations are kept apart: a statement taking the "no" branch often says "not".
NEGATIONS = frozenset({"not", "no", "never", "cannot", "isn", "doesn", "don", "won", "fails", "fail", "false", "without"})

#: number words and the digits they stand for: a chart says "Repeat 3 times", a question "three
#: times"; "once" and "twice" count times
NUMBER_WORDS = {"zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
                "seven": "7", "eight": "8", "nine": "9", "ten": "10", "once": "1", "twice": "2"}
#: the cardinals among them: the values a worded program check compares with ("Is count greater
#: than zero?" -> ``count > 0``, `branches.llm_worded_as_code`); "once" and "twice" are no values
CARDINAL_WORDS = {w: d for w, d in NUMBER_WORDS.items() if w not in ("once", "twice")}


# Irregular past forms of verbs that instructions use: stories tell the steps done in the past
# ("Marcus sent the form" for "Send the form by post", howto11 val). Forms that are also common
# nouns or other words ("saw", "left", "felt", "ground", "rose", "won") are left out, and so are
# those a negating prefix often joins ("unpaid", "unknown", "unmade", "unbroken"): the fuzzy
# match of near-identical tokens would lose them ("the fee is not unpaid" for "Has the fee been
# paid?", scen10_test).
_IRREGULAR_PAST = {
    "took": "take", "taken": "take", "brought": "bring", "bought": "buy",
    "got": "get", "gotten": "get", "gave": "give", "given": "give", "found": "find", "kept": "keep",
    "sent": "send", "told": "tell", "wrote": "write", "chose": "choose",
    "chosen": "choose", "held": "hold", "built": "build", "laid": "lay", "ran": "run", "drew": "draw",
    "drawn": "draw", "fed": "feed", "hung": "hang", "dug": "dig", "threw": "throw", "thrown": "throw",
    "stuck": "stick", "sold": "sell", "spent": "spend", "began": "begin", "begun": "begin",
    "caught": "catch", "went": "go", "gone": "go", "shook": "shake", "froze": "freeze", "woke": "wake", "wore": "wear", "tore": "tear", "torn": "tear",
    "sewn": "sew", "swept": "sweep", "hid": "hide", "undid": "undo", "came": "come",
    "drank": "drink", "grew": "grow", "grown": "grow", "blew": "blow",
    "flew": "fly", "shown": "show", "bent": "bend", "dealt": "deal", "heard": "hear", "said": "say",
    "stood": "stand", "led": "lead", "rode": "ride", "drove": "drive", "driven": "drive", "spoke": "speak",
    "fitted": "fit", "sought": "seek", "taught": "teach", "thought": "think", "forgot": "forget",
}


@functools.lru_cache(maxsize=65536)  # a chart's few hundred words recur in every question about it
def stem(word: str) -> str:
    """A deliberately light suffix stripper: enough to make "deleted", "deletes" and "deleting"
    meet at "delet", without Porter's over-merging of short words; irregular past forms meet
    their verb ("sent" -> "send")."""
    w = NUMBER_WORDS.get(word, word)
    w = _IRREGULAR_PAST.get(w, w)
    if len(w) <= 3 or w.isdigit():
        return w
    for suf, rep in (("ies", "y"), ("ied", "y"), ("ing", ""), ("edly", ""), ("ed", ""), ("es", ""),
                     ("ly", ""), ("ment", ""), ("er", ""), ("s", "")):
        if w.endswith(suf) and len(w) - len(suf) >= 3:
            w = w[: -len(suf)] + rep
            break
    # "stopped" -> "stopp" -> "stop": undo consonant doubling left by -ed/-ing
    if len(w) >= 4 and w[-1] == w[-2] and w[-1] not in "aeiouls":
        w = w[:-1]
    return w


def tokens(text: str, *, keep_stopwords: bool = False) -> list[str]:
    """Lower-cased, stemmed content tokens of ``text`` (stopwords dropped unless asked)."""
    out = []
    for t in _TOKEN.findall(text.lower()):
        if not keep_stopwords and t in STOPWORDS:
            continue
        out.append(stem(t))
    return out


class TextEncoder(Protocol):
    """Anything that embeds texts as unit vectors (`flowpath.reason.semantic.SentenceEncoder`)."""

    def encode(self, texts: list[str]) -> np.ndarray: ...


@dataclass(frozen=True)
class SemanticBlend:
    """How embedding similarity joins the lexical score.

    A cosine similarity ``c`` becomes ``clip((c - floor) / (ceiling - floor), 0, 1)``; each
    lexical coverage ``x`` becomes ``(1 - weight) * x + weight * that``, and never less than
    ``x`` when ``keep_lexical`` (a verbatim quote stays a full match). Defaults chosen on
    generated QA (``python -m data_gen.qa --hard``), not on the benchmark.
    """

    weight: float = 0.5
    floor: float = 0.2
    ceiling: float = 0.75
    keep_lexical: bool = True

    def __post_init__(self) -> None:
        if not 0.0 <= self.weight <= 1.0:
            raise ValueError(f"SemanticBlend.weight must be in [0, 1], got {self.weight}")
        if not -1.0 <= self.floor < self.ceiling <= 1.0:
            raise ValueError(f"SemanticBlend needs -1 <= floor < ceiling <= 1, got {self.floor}, {self.ceiling}")


@dataclass
class NodeIndex:
    """Pre-tokenised node texts of one chart with IDF weights (and, with an encoder, their
    embeddings); build once per chart."""

    ids: list[str]
    texts: list[str]
    token_sets: list[set[str]]
    idf: dict[str, float]
    encoder: TextEncoder | None = None
    blend: SemanticBlend = field(default_factory=SemanticBlend)
    vectors: Any = None  # (n_nodes, dim) unit vectors, embedded on the first similarity asked for
    expected: list[str] = field(default_factory=list, init=False)  # see `expect`
    # the rules ask for the same text's scores and similarities several times per question
    # (question, answer, story; each read by more than one rule): computed once per text
    _scores: dict[tuple[str, bool], dict[str, tuple[float, float]]] = field(default_factory=dict, init=False, repr=False)
    _cosines: dict[str, Any] = field(default_factory=dict, init=False, repr=False)

    @classmethod
    def build(cls, items: list[tuple[str, str]], *, encoder: TextEncoder | None = None,
              blend: SemanticBlend | None = None) -> NodeIndex:
        """Index ``(node id, text)`` pairs; ``encoder`` adds embedding similarity (the node
        texts are embedded when a similarity is first asked for: a chart whose questions
        need none, such as topological questions naming their nodes, costs no forward pass)."""
        ids = [i for i, _ in items]
        texts = [t for _, t in items]
        token_sets = [set(tokens(t)) for t in texts]
        df: Counter[str] = Counter()
        for s in token_sets:
            df.update(s)
        n = max(len(items), 1)
        idf = {t: math.log(1.0 + n / c) for t, c in df.items()}
        return cls(ids, texts, token_sets, idf, encoder if texts else None, blend or SemanticBlend())

    def expect(self, texts: list[str]) -> None:
        """The statement's texts the next similarities will likely ask for (question, answer,
        story). They are embedded in one call, with the node texts when those are not embedded
        yet, when a similarity is first asked for, and never when none is: one forward pass
        for all of them costs about as much as one text alone."""
        self.expected = list(texts)

    def node_vectors(self) -> Any:
        """The node vectors, embedding them (and the expected texts) on first use."""
        assert self.encoder is not None
        expected, self.expected = self.expected, []
        if self.vectors is None:
            self.vectors = self.encoder.encode(self.texts + expected)[: len(self.texts)]
        elif expected:
            # into the encoder's memo in one pass; `similarity` then reads each from there
            self.encoder.encode(expected)
        return self.vectors

    def similarity(self, text: str, *, raw: bool = False) -> dict[str, float]:
        """Rescaled embedding similarity of ``text`` to each node in [0, 1] (empty without an
        encoder); ``raw``: the cosine itself, unclipped, for ranking nodes the rescaled value
        ties."""
        if self.encoder is None or not text.strip():
            return {}
        sims = self._cosines.get(text)
        if sims is None:
            sims = self._cosines[text] = self.node_vectors() @ self.encoder.encode([text])[0]
        if raw:
            return {nid: float(v) for nid, v in zip(self.ids, sims, strict=True)}
        b = self.blend
        scaled = np.clip((sims - b.floor) / (b.ceiling - b.floor), 0.0, 1.0)
        return {nid: float(v) for nid, v in zip(self.ids, scaled, strict=True)}

    def novelty(self, nid: str, text_tokens: set[str], chosen: list[str]) -> float:
        """Share of ``nid``'s text-matching weight that the ``chosen`` nodes do not already
        explain. A node matching only words another anchor accounts for ("Prepare a language
        course" when the question quotes "Compare a language course") is not a new anchor."""
        i = self.ids.index(nid)
        hit = self.token_sets[i] & text_tokens
        total = math.fsum(self.weight(t) for t in hit)
        if total <= 0:
            return 0.0
        covered: set[str] = set()
        for c in chosen:
            covered |= self.token_sets[self.ids.index(c)]
        return math.fsum(self.weight(t) for t in hit - covered) / total

    def weight(self, tok: str) -> float:
        # a token no node has is worth little: it cannot discriminate between nodes
        return self.idf.get(tok, 0.0)

    def scores(self, text: str, *, semantic: bool = True) -> dict[str, tuple[float, float]]:
        """For each node: (how much of the node the text covers, how much of the text the node
        covers), both in [0, 1], IDF-weighted, blended with fuzzy similarity (and with embedding
        similarity unless ``semantic`` is off: a text not worth a forward pass)."""
        key = (text, semantic)
        cached = self._scores.get(key)
        if cached is None:
            cached = self._scores[key] = self._score(text, semantic=semantic)
        return dict(cached)  # callers may add to their copy

    def _score(self, text: str, *, semantic: bool) -> dict[str, tuple[float, float]]:
        ttoks = set(tokens(text))
        t_weight = math.fsum(self.weight(t) for t in ttoks) or 1e-9
        low = text.lower()
        out: dict[str, tuple[float, float]] = {}
        for nid, ntext, ntoks in zip(self.ids, self.texts, self.token_sets, strict=True):
            inter = ntoks & ttoks
            iw = math.fsum(self.weight(t) for t in inter)  # fsum: exact, so independent of set order
            # OCR'd node texts misspell words ("bo1l", "watr"): a near-identical longer token
            # still counts, discounted
            rest = sorted(t for t in ttoks - inter if len(t) >= 4)
            if rest:
                for u in sorted(ntoks - inter):
                    if len(u) >= 4 and process.extractOne(u, rest, scorer=fuzz.ratio, score_cutoff=80) is not None:
                        iw += 0.8 * self.weight(u)
            n_weight = math.fsum(self.weight(t) for t in ntoks) or 1e-9
            node_cov = min(iw / n_weight, 1.0)
            text_cov = min(iw / t_weight, 1.0)
            nlow = ntext.lower().strip()
            if nlow and len(nlow) >= 3:
                # partial_ratio catches a node quoted inside a long question (and vice versa);
                # only trusted when high, because short strings align anywhere
                fz = fuzz.partial_ratio(nlow, low) / 100.0 if len(nlow) <= len(low) else fuzz.partial_ratio(low, nlow) / 100.0
                if fz >= 0.85:
                    if len(nlow) <= len(low):
                        node_cov = max(node_cov, fz)
                    else:
                        text_cov = max(text_cov, fz)
            out[nid] = (node_cov, text_cov)
        sem = self.similarity(text) if semantic else {}
        if sem:
            w, keep = self.blend.weight, self.blend.keep_lexical
            for nid, (nc, tc) in out.items():
                s = sem[nid]
                bn, bt = (1 - w) * nc + w * s, (1 - w) * tc + w * s
                out[nid] = (max(nc, bn), max(tc, bt)) if keep else (bn, bt)
        return out


def best_quoted_match(index: NodeIndex, quote: str) -> tuple[str | None, float]:
    """The node whose text best equals ``quote`` (a node name cited in a question)."""
    q = quote.strip().strip("\"'").strip().lower()
    best, best_s = None, 0.0
    for nid, ntext in zip(index.ids, index.texts, strict=True):
        s = fuzz.ratio(q, ntext.lower().strip()) / 100.0
        if s > best_s:
            best, best_s = nid, s
    return best, best_s
