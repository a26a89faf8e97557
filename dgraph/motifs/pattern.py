"""The motif pattern language, GraphFrames' grammar: parsed into terms, errors pointing at the text.

A pattern is terms joined by ``;``; a term is ``(a)-[e]->(b)``: a vertex, an edge, a vertex,
each named or anonymous (``()``, ``[]``), optionally negated by a leading ``!``. Names are
identifiers (a letter or ``_``, then letters, digits or ``_``); whitespace may appear between
the tokens. Every error is a ``DgraphInputError`` showing the pattern with a caret under the
position it found wrong.

>>> p = parse("(a)-[e]->(b); !(b)-[]->(a)")
>>> [(t.src, t.edge, t.dst, t.negated) for t in p.terms]
[('a', 'e', 'b', False), ('b', None, 'a', True)]
>>> parse("(a)-[e]>(b)")
Traceback (most recent call last):
    ...
dgraph.errors.DgraphInputError: motif pattern: expected '->', found '>' at position 7
    (a)-[e]>(b)
           ^
a term reads (src)-[edge]->(dst), for example (a)-[e]->(b)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import DgraphInputError

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SPACE = re.compile(r"\s*")
SHAPE = "a term reads (src)-[edge]->(dst), for example (a)-[e]->(b)"


@dataclass(frozen=True)
class Term:
    """One term: the names of its source vertex, edge and destination vertex (None where
    anonymous), whether it is negated, and where each part starts in the pattern's text."""

    src: str | None
    edge: str | None
    dst: str | None
    negated: bool
    at: int
    src_at: int
    edge_at: int
    dst_at: int

    @property
    def vertices(self) -> tuple[str, ...]:
        """Its named vertices (one for a named self-loop)."""
        return tuple(dict.fromkeys(v for v in (self.src, self.dst) if v is not None))


@dataclass(frozen=True)
class Pattern:
    """A parsed pattern: its text and its terms in the order written."""

    text: str
    terms: tuple[Term, ...]

    @property
    def positive(self) -> tuple[Term, ...]:
        return tuple(t for t in self.terms if not t.negated)

    @property
    def negative(self) -> tuple[Term, ...]:
        return tuple(t for t in self.terms if t.negated)

    def error(self, at: int, message: str, fix: str) -> DgraphInputError:
        return pattern_error(self.text, at, message, fix)


def pattern_error(text: str, at: int, message: str, fix: str) -> DgraphInputError:
    """A ``DgraphInputError``: ``message`` at position ``at`` of ``text``, the text with a caret
    under that position, and the ``fix``."""
    line = text.replace("\n", " ").replace("\t", " ")
    return DgraphInputError(f"motif pattern: {message} at position {at}\n    {line}\n    {' ' * at}^\n{fix}")


class _Reader:
    """A cursor over the text, skipping whitespace before each token."""

    def __init__(self, text: str) -> None:
        self.text, self.at = text, 0

    def skip(self) -> int:
        self.at = _SPACE.match(self.text, self.at).end()  # type: ignore[union-attr]
        return self.at

    def expect(self, token: str, fix: str = SHAPE) -> int:
        at = self.skip()
        if not self.text.startswith(token, at):
            found = "the end of the pattern" if at >= len(self.text) else repr(self.text[at])
            raise pattern_error(self.text, at, f"expected {token!r}, found {found}", fix)
        self.at = at + len(token)
        return at

    def name(self, closing: str) -> tuple[str | None, int]:
        """An optional name before ``closing``, and where it starts."""
        at = self.skip()
        found = _NAME.match(self.text, at)
        if found is not None:
            self.at = found.end()
            return found.group(), at
        if not self.text.startswith(closing, at) and at < len(self.text):
            raise pattern_error(
                self.text,
                at,
                f"{self.text[at]!r} cannot start a name",
                "names are identifiers: a letter or _, then letters, digits or _",
            )
        return None, at


def _term(reader: _Reader) -> Term:
    start = reader.skip()
    negated = reader.text.startswith("!", start)
    if negated:
        reader.at += 1
    reader.expect("(")
    src, src_at = reader.name(")")
    reader.expect(")")
    reader.expect("-")
    reader.expect("[")
    edge, edge_at = reader.name("]")
    reader.expect("]")
    reader.expect("->")
    reader.expect("(")
    dst, dst_at = reader.name(")")
    reader.expect(")")
    return Term(src, edge, dst, negated, start, src_at, edge_at, dst_at)


def parse(text: str) -> Pattern:
    """The ``Pattern`` of ``text``, its names checked: an edge named twice, a name used for a
    vertex and an edge, a negated term naming its edge and a term naming nothing are errors."""
    if not isinstance(text, str):
        raise DgraphInputError(f"a motif pattern is a string such as '(a)-[e]->(b)', got {type(text).__name__}")
    reader, terms = _Reader(text), []
    while True:
        terms.append(_term(reader))
        at = reader.skip()
        if at >= len(text):
            break
        reader.expect(";", "terms are separated by ';', for example (a)-[]->(b); (b)-[]->(c)")
    pattern = Pattern(text, tuple(terms))
    _check_names(pattern)
    return pattern


def _check_names(pattern: Pattern) -> None:
    vertices = {v for t in pattern.terms for v in t.vertices}
    edges: dict[str, int] = {}
    for t in pattern.terms:
        if t.src is None and t.dst is None and t.edge is None:
            raise pattern.error(t.at, "this term names nothing", "name a vertex, for example (a)-[]->()")
        if t.src is None and t.dst is None:
            raise pattern.error(
                t.at, "this term names no vertex", "name a vertex the edge joins, for example (a)-[e]->()"
            )
        if t.edge is None:
            continue
        if t.negated:
            raise pattern.error(
                t.edge_at,
                f"the negated term names its edge {t.edge!r}, which no match can return",
                "leave the edge anonymous: !(a)-[]->(b)",
            )
        if t.edge in vertices:
            raise pattern.error(t.edge_at, f"{t.edge!r} names a vertex and an edge", "give the edge its own name")
        if t.edge in edges:
            raise pattern.error(
                t.edge_at,
                f"the edge name {t.edge!r} is used twice (first at position {edges[t.edge]})",
                "give each edge its own name, or leave one anonymous: []",
            )
        edges[t.edge] = t.edge_at
