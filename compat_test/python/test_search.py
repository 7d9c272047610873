"""Vector search (VectorDistance ORDER BY) and full-text search (FullTextContains, ORDER BY RANK
FullTextScore, RRF) on containers with one and with five partition key ranges."""

import math

import pytest

from conftest import RANGES_BY_THROUGHPUT, make_container

VECTOR_POLICY = {"vectorEmbeddings": [
    {"path": "/embedding", "dataType": "float32", "distanceFunction": "cosine", "dimensions": 3}]}
FULL_TEXT_POLICY = {"defaultLanguage": "en-US", "fullTextPaths": [{"path": "/text", "language": "en-US"}]}
INDEXING = {
    "indexingMode": "consistent",
    "includedPaths": [{"path": "/*"}],
    "excludedPaths": [{"path": "/embedding/*"}],
    "vectorIndexes": [{"path": "/embedding", "type": "flat"}],
    "fullTextIndexes": [{"path": "/text"}],
}

DOCS = [
    ("d1", [1.0, 0.0, 0.0], "the quick brown fox jumps over the lazy dog"),
    ("d2", [0.9, 0.1, 0.0], "a fox and another fox and a third fox"),
    ("d3", [0.0, 1.0, 0.0], "dogs sleep all day long"),
    ("d4", [0.0, 0.0, 1.0], "cats and dogs living together"),
    ("d5", [0.7, 0.7, 0.0], "a brown dog runs"),
    ("d6", [0.5, 0.0, 0.5], "nothing relevant here at all"),
]
QUERY_VECTOR = [1.0, 0.0, 0.0]


def cosine(a, b):
    dot = sum(x * y for x, y in zip(a, b))
    return dot / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))


@pytest.fixture(params=sorted(RANGES_BY_THROUGHPUT), ids=lambda t: f"{RANGES_BY_THROUGHPUT[t]}range")
def search(request, database):
    c = make_container(database, throughput=request.param, vector_embedding_policy=VECTOR_POLICY,
                       full_text_policy=FULL_TEXT_POLICY, indexing_policy=INDEXING)
    assert len(list(c.read_feed_ranges())) == RANGES_BY_THROUGHPUT[request.param]
    for i, (id_, emb, text) in enumerate(DOCS):
        c.create_item({"id": id_, "pk": f"p{i}", "embedding": emb, "text": text})
    yield c, RANGES_BY_THROUGHPUT[request.param]
    database.delete_container(c)


def test_vector_distance_ranking(search):
    """ORDER BY VectorDistance ranks the most similar first (cosine: highest score), across
    partitions through the SDK's plan, whatever the range count."""
    c, _ = search
    want = sorted(DOCS, key=lambda d: -cosine(d[1], QUERY_VECTOR))
    rows = list(c.query_items(
        "SELECT TOP 4 c.id, VectorDistance(c.embedding, @v) AS score FROM c ORDER BY VectorDistance(c.embedding, @v)",
        parameters=[{"name": "@v", "value": QUERY_VECTOR}], enable_cross_partition_query=True))
    assert [r["id"] for r in rows] == [d[0] for d in want[:4]]
    for r, d in zip(rows, want):
        assert r["score"] == pytest.approx(cosine(d[1], QUERY_VECTOR), abs=1e-6)
    # across partitions the plan marks it non-streaming (hasNonStreamingOrderBy): the SDK
    # gathers every range's results and refuses to do so without TOP or LIMIT
    with pytest.raises(ValueError, match="without TOP or LIMIT"):
        list(c.query_items("SELECT c.id FROM c ORDER BY VectorDistance(c.embedding, @v)",
                           parameters=[{"name": "@v", "value": QUERY_VECTOR}], enable_cross_partition_query=True))
    paged = list(c.query_items(
        "SELECT VALUE c.id FROM c ORDER BY VectorDistance(c.embedding, @v) OFFSET 1 LIMIT 2",
        parameters=[{"name": "@v", "value": QUERY_VECTOR}], enable_cross_partition_query=True))
    assert paged == [d[0] for d in want[1:3]]
    # within one partition the gateway answers it whole
    one = list(c.query_items("SELECT VALUE c.id FROM c ORDER BY VectorDistance(c.embedding, [0, 1, 0])",
                             partition_key="p2"))
    assert one == ["d3"]


def test_full_text_contains(search):
    c, _ = search
    got = sorted(c.query_items("SELECT VALUE c.id FROM c WHERE FullTextContains(c.text, 'fox')",
                               enable_cross_partition_query=True))
    assert got == ["d1", "d2"]
    got = sorted(c.query_items("SELECT VALUE c.id FROM c WHERE FullTextContainsAll(c.text, 'brown', 'dog')",
                               enable_cross_partition_query=True))
    assert got == ["d1", "d5"]
    got = sorted(c.query_items("SELECT VALUE c.id FROM c WHERE FullTextContainsAny(c.text, 'cats', 'sleep')",
                               enable_cross_partition_query=True))
    assert got == ["d3", "d4"]


def test_full_text_score_rank(search):
    """ORDER BY RANK FullTextScore: the query is answered whole by the emulator (one request, the
    final ranking), so the SDK never needs a hybrid plan."""
    c, _ = search
    rows = list(c.query_items("SELECT TOP 3 VALUE c.id FROM c ORDER BY RANK FullTextScore(c.text, 'fox')",
                              enable_cross_partition_query=True))
    assert rows[:2] == ["d2", "d1"]  # three foxes outrank one
    assert "d6" not in rows[:2]
    fused = list(c.query_items(
        "SELECT TOP 3 VALUE c.id FROM c ORDER BY RANK RRF(FullTextScore(c.text, 'fox'), VectorDistance(c.embedding, @v))",
        parameters=[{"name": "@v", "value": QUERY_VECTOR}], enable_cross_partition_query=True))
    assert fused[0] in ("d1", "d2") and set(fused[:2]) == {"d1", "d2"}


# Eight documents whose rankings are worked out by hand (compat_test/js_hybrid_search_test.go):
# no stop words in the texts, d8 has no text.
HYBRID_DOCS = [
    ("d1", "John Smith", "united states america", [1, 0]),
    ("d2", "red fox", "fox fox fox wood", [0, 1]),
    ("d3", "John", "fox dog", [0.9, 0.1]),
    ("d4", "blue car", "united kingdom", [0.5, 0.5]),
    ("d5", "Johnny Cash", "states mind body", [0.2, 0.8]),
    ("d6", "green van", "fox fox dog dog dog", [0.7, 0.3]),
    ("d7", "yellow bus", "cat sleeps", [0.1, 0.9]),
    ("d8", "John Doe", None, [0.95, 0.05]),
]


def test_rrf_hybrid_plan_five_ranges(database):
    """ORDER BY RANK RRF(...) selecting an object on five ranges: the emulator refuses the
    cross-partition query with the gateway's hybrid search plan, and the SDK's hybrid pipeline
    (_HybridSearchContextAggregator) runs the statistics and component queries and fuses them.
    Cosine to [1, 0] ranks d1 d8 d3 d6 d4 d5 d7 d2, FullTextScore 'fox' ranks d2 d3 d6, then the
    texts without fox, then d8 (no text); RRF with k = 60 and dense ranks gives the orders below,
    the ones the emulator serves whole on one range."""
    c = make_container(database, throughput=30000)
    assert len(list(c.read_feed_ranges())) == 5
    for i, (id_, title, text, v) in enumerate(HYBRID_DOCS):
        item = {"id": id_, "pk": f"p{i}", "title": title, "v": v}
        if text is not None:
            item["text"] = text
        c.create_item(item)
    try:
        rrf = "RRF(VectorDistance(c.v, [1, 0]), FullTextScore(c.text, 'fox')"
        rows = list(c.query_items(f"SELECT TOP 10 c.id FROM c ORDER BY RANK {rrf})",
                                  enable_cross_partition_query=True))
        assert [r["id"] for r in rows] == ["d1", "d3", "d8", "d6", "d2", "d4", "d5", "d7"]
        rows = list(c.query_items(f"SELECT TOP 3 c.id FROM c ORDER BY RANK {rrf}, [1, 3])",
                                  enable_cross_partition_query=True))
        assert [r["id"] for r in rows] == ["d3", "d2", "d1"]
        rows = list(c.query_items(
            "SELECT TOP 10 c.id FROM c WHERE FullTextContains(c.title, 'John') OR FullTextContains(c.text, 'United States') "
            "ORDER BY RANK RRF(FullTextScore(c.title, 'John'), FullTextScore(c.text, 'United States'))",
            enable_cross_partition_query=True))
        assert [r["id"] for r in rows] == ["d1", "d3", "d4", "d5", "d8"]
        # one component: BM25 of 'fox' (d2 three in four words, d3 one in two, d6 two in five)
        rows = list(c.query_items("SELECT TOP 3 c.id FROM c ORDER BY RANK FullTextScore(c.text, 'fox')",
                                  enable_cross_partition_query=True))
        assert [r["id"] for r in rows] == ["d2", "d3", "d6"]
        # a term of several words matches any of them, as on the service
        got = sorted(c.query_items("SELECT VALUE c.id FROM c WHERE FullTextContains(c.text, 'United States')",
                                   enable_cross_partition_query=True))
        assert got == ["d1", "d4", "d5"]
    finally:
        database.delete_container(c)
