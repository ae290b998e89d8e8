"""Connected components of the "matches" graph (local; a Spark version can replace it).

``connected_components`` is the one step of the bulk path that another engine may take
over: it receives the member count and an edge list over member numbers (members are
numbered in merge order) and returns, for each member, the number of the smallest member
in its component. That labelling is deterministic, so any implementation (union-find here,
label propagation on Spark, hooking and jumping in DuckDB SQL) gives the same result.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class Edges:
    """An edge list over member numbers: ``source[i]`` matches ``target[i]``."""

    source: list[int] = field(default_factory=list)
    target: list[int] = field(default_factory=list)

    def add(self, a: int, b: int) -> None:
        self.source.append(a)
        self.target.append(b)

    def __len__(self) -> int:
        return len(self.source)


def connected_components(count: int, edges: Edges) -> list[int]:
    """Union-find with path halving; each root is the smallest member of its component."""
    parent = list(range(count))
    for a, b in zip(edges.source, edges.target, strict=True):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        while parent[b] != b:
            parent[b] = parent[parent[b]]
            b = parent[b]
        if a < b:
            parent[b] = a
        elif b < a:
            parent[a] = b
    labels = parent
    for i in range(count):
        root = i
        while labels[root] != root:
            root = labels[root]
        labels[i] = root
    return labels


def components_of_rows(
    count: int, member: list[int], rule: list[int], side: list[int], value: list[bytes]
) -> list[int]:
    """``connected_components`` over edge-table rows (``bulk_components``' layout).

    Rows sharing (rule, value) link their members only when both sides of the rule occur.
    """
    first: dict[tuple[int, bytes], list[int]] = {}
    sides: dict[tuple[int, bytes], int] = {}
    for m, r, s, v in zip(member, rule, side, value, strict=True):
        key = (r, v)
        found = first.get(key)
        if found is None:
            first[key] = [m]
            sides[key] = 1 << s
        else:
            found.append(m)
            sides[key] |= 1 << s
    edges = Edges()
    for key, members in first.items():
        if sides[key] == 3:
            head = members[0]
            for other in members[1:]:
                edges.add(head, other)
    return connected_components(count, edges)
