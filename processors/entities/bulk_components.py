"""Connected components for a bulk rebuild of the merged view, on three engines.

A full rebuild (first load or reset) turns every live entity's equality values into an
*edge table*: one row per (member, rule, side, value) where ``member`` is a dense integer
id of the entity, ``rule`` the index of the equality rule, ``side`` 0 for the rule's left
expression and 1 for its right, and ``value`` the type-tagged bytes of one value. Two
members match on a rule when one has a value on the left side that the other has on the
right side; transitivity makes the merged groups the connected components of the
bipartite graph between members and *active* keys: a (rule, value) key is active only
when both of its sides have a member (left-side members alone do not match each other).

Every engine labels each member with the smallest member id of its component, so the
result does not depend on the engine that computed it:

* ``components_local``: numpy, Shiloach-Vishkin style min-hooking with pointer jumping;
* ``components_duckdb``: the same algorithm as DuckDB SQL statements, the reference;
* ``components_spark``: label propagation on Spark DataFrames, input and output as
  Parquet files in the staging area.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

if TYPE_CHECKING:
    from numpy.typing import NDArray

EDGE_SCHEMA = pa.schema(
    [
        pa.field("member", pa.int64(), nullable=False),
        pa.field("rule", pa.int32(), nullable=False),
        pa.field("side", pa.int8(), nullable=False),
        pa.field("value", pa.binary(), nullable=False),
    ]
)
LABEL_SCHEMA = pa.schema(
    [
        pa.field("member", pa.int64(), nullable=False),
        pa.field("component", pa.int64(), nullable=False),
    ]
)


def active_links(edges: pa.Table) -> pa.Table:
    """(member, key) pairs for the keys that have members on both sides of their rule.

    ``key`` is a dense int64 id of the (rule, value) pair, numbered in first-seen order.
    """
    edges = edges.select(["member", "rule", "side", "value"])
    keys = pa.Table.from_arrays(
        [edges["rule"], edges["value"], edges["side"]], names=["rule", "value", "side"]
    )
    sides = keys.group_by(["rule", "value"], use_threads=False).aggregate(
        [("side", "min"), ("side", "max")]
    )
    active = sides.filter(pc.not_equal(sides["side_min"], sides["side_max"]))
    active = active.append_column("key", pa.array(np.arange(len(active), dtype=np.int64)))
    joined = edges.join(
        active.select(["rule", "value", "key"]), ["rule", "value"], join_type="inner"
    )
    return joined.select(["member", "key"])


def _as_numpy(column: pa.ChunkedArray) -> NDArray[np.int64]:
    return np.asarray(column.to_numpy(), dtype=np.int64)


def components_local(edges: pa.Table, member_count: int) -> NDArray[np.int64]:
    """The smallest member id of each member's component, indexed by member id."""
    links = active_links(edges)
    members = _as_numpy(links["member"])
    keys = _as_numpy(links["key"]) + member_count
    node_count = member_count + (int(keys.max()) - member_count + 1 if len(keys) else 0)
    label = np.arange(node_count, dtype=np.int64)
    while True:
        low = np.minimum(label[members], label[keys])
        before = label.copy()
        # Hook: every endpoint, and every endpoint's current root, takes the smaller label.
        np.minimum.at(label, members, low)
        np.minimum.at(label, keys, low)
        np.minimum.at(label, before[members], low)
        np.minimum.at(label, before[keys], low)
        # Shortcut: jump every node to its root.
        while True:
            jumped = label[label]
            if np.array_equal(jumped, label):
                break
            label = jumped
        if np.array_equal(label, before):
            return label[:member_count]


def components_duckdb(edges: pa.Table, member_count: int) -> NDArray[np.int64]:
    """The reference: the numpy algorithm (min-hooking, pointer jumping) as DuckDB SQL.

    Nodes are the members (``0..member_count-1``) and the active keys (numbered after
    them); each round every endpoint of an edge, and its current root, takes the smaller
    label of the edge's two ends, then labels jump to their label's label until stable.
    """
    links = active_links(edges)
    import duckdb  # the reference implementation only (tests, benchmarks)

    con = duckdb.connect()
    try:
        con.register("links", links)
        offset = int(member_count)
        con.execute(f"CREATE TABLE edge AS SELECT member AS u, key + {offset} AS v FROM links")
        con.execute(
            "CREATE TABLE label AS SELECT range AS node, range AS comp FROM range("
            f"{offset} + (SELECT coalesce(max(key) + 1, 0) FROM links))"
        )
        while True:
            con.execute(
                """
                CREATE OR REPLACE TEMP TABLE hook AS
                WITH ends AS (
                    SELECT e.u, e.v, lu.comp AS cu, lv.comp AS cv, least(lu.comp, lv.comp) AS low
                    FROM edge e JOIN label lu ON lu.node = e.u JOIN label lv ON lv.node = e.v
                    WHERE lu.comp <> lv.comp
                )
                SELECT node, min(low) AS low FROM (
                    SELECT u AS node, low FROM ends UNION ALL SELECT v, low FROM ends
                    UNION ALL SELECT cu, low FROM ends UNION ALL SELECT cv, low FROM ends
                ) GROUP BY node
                """
            )
            hooked = con.execute(
                "UPDATE label SET comp = hook.low FROM hook "
                "WHERE hook.node = label.node AND hook.low < label.comp"
            ).fetchone()
            while True:
                jumped = con.execute(
                    "UPDATE label SET comp = parent.comp FROM label AS parent "
                    "WHERE parent.node = label.comp AND parent.comp < label.comp"
                ).fetchone()
                if not jumped or not jumped[0]:
                    break
            if not hooked or not hooked[0]:
                break
        result = con.sql(f"SELECT comp FROM label WHERE node < {offset} ORDER BY node")
        table = result.to_arrow_table()
    finally:
        con.close()
    return _as_numpy(table["comp"])


def write_edges(edges: pa.Table, path: Path) -> Path:
    """Stage an edge table as Parquet for Spark."""
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(edges.select(EDGE_SCHEMA.names).cast(EDGE_SCHEMA), path)
    return path


def components_spark(spark: Any, edges_path: Path, output_path: Path, member_count: int) -> Path:
    """Label propagation on Spark; writes (member, component) Parquet to ``output_path``.

    Members are the bipartite graph's left nodes and active keys its right nodes; each
    round a key takes the smallest label of its members, every member the smallest label
    of its keys, then the label of its label (a shortcut), until no label changes. Labels
    are member ids, so the result is the smallest member id of each component, as on the
    other engines.
    """
    from pyspark.sql import functions as f

    edges = spark.read.parquet(str(edges_path))
    sides = edges.groupBy("rule", "value").agg(f.min("side").alias("lo"), f.max("side").alias("hi"))
    active = sides.where(f.col("lo") != f.col("hi")).select("rule", "value")
    links = edges.join(active, ["rule", "value"]).select("member", "rule", "value").persist()
    try:
        labels = spark.range(member_count).select(
            f.col("id").alias("member"), f.col("id").alias("component")
        )
        while True:
            key_labels = (
                links.join(labels, "member")
                .groupBy("rule", "value")
                .agg(f.min("component").alias("key_component"))
            )
            proposals = (
                links.join(key_labels, ["rule", "value"])
                .groupBy("member")
                .agg(f.min("key_component").alias("proposed"))
            )
            hooked = labels.join(proposals, "member", "left").select(
                "member",
                f.least("component", f.coalesce("proposed", "component")).alias("component"),
                (f.col("proposed") < f.col("component")).alias("changed"),
            )
            # Shortcut: a member takes its label's label (labels are member ids).
            parents = hooked.select(
                f.col("member").alias("parent"), f.col("component").alias("grandparent")
            )
            updated = (
                hooked.join(parents, hooked["component"] == parents["parent"], "left")
                .select(
                    "member",
                    f.least("component", f.coalesce("grandparent", "component")).alias("component"),
                    "changed",
                )
                .localCheckpoint(eager=True)
            )
            done = updated.where(f.col("changed")).limit(1).count() == 0
            labels = updated.select("member", "component")
            if done:
                break
        labels.write.mode("overwrite").parquet(str(output_path))
    finally:
        links.unpersist()  # the session is shared: leave nothing cached in it
    return output_path


def read_components(path: Path, member_count: int) -> NDArray[np.int64]:
    """The component of each member, from a (member, component) Parquet directory."""
    table = pq.read_table(path).cast(LABEL_SCHEMA)
    component = np.full(member_count, -1, dtype=np.int64)
    component[_as_numpy(table["member"])] = _as_numpy(table["component"])
    if table.num_rows != member_count or (component < 0).any():
        msg = f"the components job labelled {table.num_rows} members, not {member_count}"
        raise RuntimeError(msg)
    return component
