"""How a motif pattern is evaluated: the order its terms are joined in, what each join binds,
which filters follow each join, what each name's candidates need, and whether it is bounded.

Positive terms that share vertex names form a component; the terms of a component are joined
one at a time, each on the names bound before it, so every join after the first is linked to
what came before (a term with both ends bound is a filter and goes first). Two components share
nothing: their matches are every combination of theirs, a cross product, refused unless a
``limit`` caps it. A negated term is an anti-join, applied as soon as its names are bound; with
``distinct``, so is each ``x != y`` between two named vertices.

Degree pruning: with ``distinct`` (named vertices all different), a name with out-terms to k
other names needs k out-neighbours besides itself (in-terms likewise; on an undirected graph,
out and in neighbours are one set), and each term's arcs are cut to its ends' candidates
before they are joined. Without it, names may share a vertex, so a name needs one out- or
in-neighbour (or a loop), which the joins on it ask already: nothing is pruned.
"""

from __future__ import annotations

from dataclasses import dataclass

from .pattern import Pattern, Term


@dataclass(frozen=True)
class Need:
    """How many distinct out- and in-neighbours, itself excluded, a vertex must have to stand
    for a name of a ``distinct`` pattern."""

    out: int = 0
    into: int = 0


@dataclass(frozen=True)
class Step:
    """A positive term joined on the names bound before it (none for a component's first),
    then the negated terms and the ``x != y`` pairs whose names are all bound by then."""

    term: Term
    on: tuple[str, ...]
    negations: tuple[Term, ...]
    unequal: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Plan:
    """A pattern's evaluation: its components' steps; the negations and ``x != y`` pairs that
    span components (applied after their cross product); each name's ``Need`` where it prunes;
    the output in pattern order, ``(kind, name)`` with kind ``"vertex"`` or ``"edge"``."""

    pattern: Pattern
    components: tuple[tuple[Step, ...], ...]
    negations: tuple[Term, ...]
    unequal: tuple[tuple[str, str], ...]
    needs: dict[str, Need]
    output: tuple[tuple[str, str], ...]
    distinct: bool

    @property
    def bounded(self) -> bool:
        """Whether the matches are finite joins of arcs, not a cross product of components."""
        return len(self.components) == 1


def plan(pattern: Pattern, *, directed: bool, distinct: bool = False, limit: int | None = None) -> Plan:
    """The ``Plan`` of a parsed pattern on a directed or undirected graph; a pattern of negated
    terms alone, a negated term naming a vertex no positive term binds, and (without
    ``limit``) a pattern of unconnected parts are ``DgraphInputError``s at their position."""
    positive, negative = pattern.positive, pattern.negative
    if not positive:
        raise pattern.error(
            negative[0].at,
            "a pattern of negated terms alone matches everything that is not there",
            "add a positive term that binds its vertices, for example (a)-[]->(b); !(b)-[]->(a)",
        )
    bound = {v for t in positive for v in t.vertices}
    for t in negative:
        for name, at in ((t.src, t.src_at), (t.dst, t.dst_at)):
            if name is not None and name not in bound:
                raise pattern.error(
                    at,
                    f"the negated term's vertex {name!r} is not named by any positive term",
                    f"bind {name!r} in a positive term, or leave it anonymous: ()",
                )
    components = _components(positive)
    if len(components) > 1 and limit is None:
        first = components[1][0]
        raise pattern.error(
            first.at,
            "this term shares no vertex name with the terms before it: the matches would be every "
            "combination of each part's (a cross product)",
            "join the terms through a shared vertex name, or pass limit= to take that many matches",
        )
    names = list(dict.fromkeys(v for t in positive for v in t.vertices))
    pairs = [(x, y) for i, x in enumerate(names) for y in names[i + 1 :]] if distinct else []
    waiting, steps = list(negative), []
    for terms in components:
        ordered: list[Step] = []
        known: set[str] = set()
        done: list[tuple[str, str]] = []
        for term in _order(terms):
            on = tuple(v for v in term.vertices if v in known)
            known.update(term.vertices)
            ready_neg = tuple(t for t in waiting if set(t.vertices) <= known)
            waiting = [t for t in waiting if t not in ready_neg]
            ready_pairs = tuple(p for p in pairs if set(p) <= known and p not in done)
            done += ready_pairs
            ordered.append(Step(term, on, ready_neg, ready_pairs))
        pairs = [p for p in pairs if p not in done]
        steps.append(tuple(ordered))
    return Plan(
        pattern,
        tuple(steps),
        tuple(waiting),
        tuple(pairs),
        _needs(positive, directed=directed, distinct=distinct),
        _output(pattern),
        distinct,
    )


def _components(terms: tuple[Term, ...]) -> list[list[Term]]:
    """The positive terms grouped by shared vertex names, in the order their first terms appear."""
    groups: list[tuple[set[str], list[Term]]] = []
    for term in terms:
        touching = [g for g in groups if g[0] & set(term.vertices)]
        names, members = set(term.vertices), [term]
        for g in touching:
            names |= g[0]
            members = g[1] + members
            groups.remove(g)
        groups.append((names, sorted(members, key=terms.index)))
    return sorted((g[1] for g in groups), key=lambda m: terms.index(m[0]))


def _order(terms: list[Term]) -> list[Term]:
    """Join order within a component: a self-loop first (its arcs are the fewest), else the term
    whose names the most terms use; then always a term linked to the bound names, those with
    every name bound (filters) before those that bind a new one."""
    uses = {v: sum(v in t.vertices for t in terms) for t in terms for v in t.vertices}
    first = max(terms, key=lambda t: (t.src == t.dst, sum(uses[v] for v in t.vertices), -terms.index(t)))
    order, known, left = [first], set(first.vertices), [t for t in terms if t is not first]
    while left:
        linked = [t for t in left if known & set(t.vertices)]
        term = max(linked, key=lambda t: (set(t.vertices) <= known, -left.index(t)))
        order.append(term)
        known |= set(term.vertices)
        left.remove(term)
    return order


def _needs(terms: tuple[Term, ...], *, directed: bool, distinct: bool) -> dict[str, Need]:
    """Each name's ``Need`` where it says more than the joins on the name do: more than one
    neighbour (``distinct`` patterns only; otherwise all names may be one vertex)."""
    outs: dict[str, set] = {}
    ins: dict[str, set] = {}
    for i, t in enumerate(terms):
        if t.src is not None and t.src == t.dst:
            continue  # a loop: the vertex is its own neighbour, which the counts leave out
        if t.src is not None:
            outs.setdefault(t.src, set()).add(t.dst if t.dst is not None else ("anonymous", i))
        if t.dst is not None:
            ins.setdefault(t.dst, set()).add(t.src if t.src is not None else ("anonymous", i))
    needs = {}
    for name in {*outs, *ins}:
        out, into = _count(outs.get(name, set()), distinct), _count(ins.get(name, set()), distinct)
        if not directed:  # one neighbourhood: out and in arcs are the same edges
            out, into = _count(outs.get(name, set()) | ins.get(name, set()), distinct), 0
        if out > 1 or into > 1:  # one neighbour: the joins on the name ask no less
            needs[name] = Need(out, into)
    return needs


def _count(neighbours: set, distinct: bool) -> int:
    """Distinct neighbours a name needs: every named one (all different with ``distinct``; an
    anonymous one may be any of them), else one if it has any."""
    if not neighbours:
        return 0
    if not distinct:
        return 1
    return max(1, sum(isinstance(v, str) for v in neighbours))


def _output(pattern: Pattern) -> tuple[tuple[str, str], ...]:
    """The named vertices and edges of the positive terms, in the order they first appear."""
    out: dict[str, str] = {}
    for t in pattern.positive:
        for kind, name in (("vertex", t.src), ("edge", t.edge), ("vertex", t.dst)):
            if name is not None:
                out.setdefault(name, kind)
    return tuple((kind, name) for name, kind in out.items())
