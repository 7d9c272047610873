"""Queries on containers with one and with five partition key ranges, single- and cross-partition,
read page by page and resumed from continuation tokens in new iterators."""

import statistics

import pytest
from azure.cosmos import exceptions

N = 40
PKS = ["p0", "p1", "p2", "p3"]


def fill(container):
    items = [{"id": f"i{i:02d}", "pk": PKS[i % 4], "n": i, "cat": f"c{i % 3}", "even": i % 2 == 0}
             for i in range(N)]
    for it in items:
        container.create_item(it)
    return items


@pytest.fixture
def filled(ranged):
    container, ranges = ranged
    assert len(list(container.read_feed_ranges())) == ranges
    return container, ranges, fill(container)


def read_pages(container, query, page_size, continuation=None, **kwargs):
    """Reads every page of a query: returns (pages, continuation tokens after each page)."""
    it = container.query_items(query, max_item_count=page_size, **kwargs)
    pages, tokens = [], []
    pager = it.by_page(continuation)
    for page in pager:
        pages.append(list(page))
        tokens.append(pager.continuation_token)
    return pages, tokens


def resume_everywhere(container, query, page_size, expected, **kwargs):
    """Reads the query page by page, then resumes from every continuation in a new iterator:
    each resumption yields exactly the rest of the results."""
    pages, tokens = read_pages(container, query, page_size, **kwargs)
    flat = [x for p in pages for x in p]
    assert flat == expected
    assert len(pages) >= 2, "the query should need several pages"
    assert tokens[-1] is None
    done = 0
    for page, token in zip(pages[:-1], tokens[:-1]):
        done += len(page)
        assert token, "every page but the last carries a continuation"
        rest, _ = read_pages(container, query, page_size, continuation=token, **kwargs)
        assert [x for p in rest for x in p] == expected[done:]


def test_single_partition_paged_and_resumed(filled):
    c, _, items = filled
    expected = [it["id"] for it in items if it["pk"] == "p1"]
    resume_everywhere(c, "SELECT VALUE c.id FROM c", 3, expected, partition_key="p1")
    # ORDER BY, TOP, OFFSET/LIMIT, DISTINCT and aggregates within one partition
    desc = sorted((it["n"] for it in items if it["pk"] == "p1"), reverse=True)
    resume_everywhere(c, "SELECT VALUE c.n FROM c ORDER BY c.n DESC", 4, desc, partition_key="p1")
    assert list(c.query_items("SELECT TOP 2 VALUE c.n FROM c ORDER BY c.n", partition_key="p2")) == [2, 6]
    assert list(c.query_items("SELECT VALUE c.n FROM c ORDER BY c.n OFFSET 1 LIMIT 2",
                              partition_key="p3")) == [7, 11]
    assert sorted(c.query_items("SELECT DISTINCT VALUE c.cat FROM c", partition_key="p0")) == ["c0", "c1", "c2"]
    assert list(c.query_items("SELECT VALUE COUNT(1) FROM c", partition_key="p0")) == [10]


def test_cross_partition_plain_paged_and_resumed(filled):
    c, _, items = filled
    got, tokens = read_pages(c, "SELECT VALUE c.id FROM c WHERE c.n >= 0", 7, enable_cross_partition_query=True)
    flat = [x for p in got for x in p]
    assert sorted(flat) == sorted(it["id"] for it in items) and len(flat) == N
    assert len(got) >= 6
    done = 0
    for page, token in zip(got[:-1], tokens[:-1]):
        done += len(page)
        rest, _ = read_pages(c, "SELECT VALUE c.id FROM c WHERE c.n >= 0", 7, continuation=token,
                             enable_cross_partition_query=True)
        assert [x for p in rest for x in p] == flat[done:]


def test_cross_partition_order_by(filled):
    c, ranges, items = filled
    expected = [it["id"] for it in sorted(items, key=lambda it: -it["n"])]
    pages, tokens = read_pages(c, "SELECT c.id FROM c ORDER BY c.n DESC", 6, enable_cross_partition_query=True)
    assert [x["id"] for p in pages for x in p] == expected
    # two sort keys
    got = list(c.query_items("SELECT VALUE c.n FROM c ORDER BY c.cat ASC, c.n DESC",
                             enable_cross_partition_query=True))
    assert got == [it["n"] for it in sorted(items, key=lambda it: (it["cat"], -it["n"]))]


def test_cross_partition_order_by_pages(filled):
    """A query the SDK runs through its pipeline (here ORDER BY across ranges) pages correctly.

    Its `continuation_token` is not a resumable position: azure-cosmos 4.17.1 reports the last
    range response's x-ms-continuation, and its pipeline reads a range's next page ahead
    (_query_iterable.py `_unpack`), so a new iterator handed that token would skip a page. That
    is the SDK's behaviour against the service too; resume only queries the gateway serves whole
    (single-partition, or cross-partition without ORDER BY/TOP/aggregates/DISTINCT/OFFSET).
    """
    c, _, items = filled
    expected = [it["n"] for it in sorted(items, key=lambda it: it["n"])]
    pages, _ = read_pages(c, "SELECT VALUE c.n FROM c ORDER BY c.n", 9, enable_cross_partition_query=True)
    assert [x for p in pages for x in p] == expected
    assert len(pages) >= 2


def test_cross_partition_top_offset_distinct(filled):
    c, _, items = filled
    q = dict(enable_cross_partition_query=True)
    assert list(c.query_items("SELECT TOP 5 VALUE c.n FROM c ORDER BY c.n DESC", **q)) == [39, 38, 37, 36, 35]
    assert len(list(c.query_items("SELECT TOP 5 * FROM c", **q))) == 5
    assert list(c.query_items("SELECT VALUE c.n FROM c ORDER BY c.n OFFSET 10 LIMIT 5", **q)) == [10, 11, 12, 13, 14]
    assert sorted(c.query_items("SELECT DISTINCT VALUE c.cat FROM c", **q)) == ["c0", "c1", "c2"]
    assert list(c.query_items("SELECT DISTINCT VALUE c.cat FROM c ORDER BY c.cat DESC", **q)) == ["c2", "c1", "c0"]
    rows = list(c.query_items("SELECT DISTINCT c.even FROM c", **q))
    assert sorted(r["even"] for r in rows) == [False, True]


def test_cross_partition_aggregates(filled):
    c, _, items = filled
    q = dict(enable_cross_partition_query=True)
    ns = [it["n"] for it in items]
    assert list(c.query_items("SELECT VALUE COUNT(1) FROM c", **q)) == [N]
    assert list(c.query_items("SELECT VALUE SUM(c.n) FROM c", **q)) == [sum(ns)]
    assert list(c.query_items("SELECT VALUE AVG(c.n) FROM c", **q)) == [statistics.mean(ns)]
    assert list(c.query_items("SELECT VALUE MIN(c.n) FROM c", **q)) == [0]
    assert list(c.query_items("SELECT VALUE MAX(c.n) FROM c", **q)) == [N - 1]
    assert list(c.query_items("SELECT VALUE COUNT(1) FROM c WHERE c.n > 1000", **q)) == [0]
    # over no value, one partition answers no result; the SDK's pipeline, which runs every
    # cross-partition aggregate, always yields its aggregator's result, here None
    assert list(c.query_items("SELECT VALUE MAX(c.n) FROM c WHERE c.n > 1000", partition_key="p0")) == []
    assert list(c.query_items("SELECT VALUE MAX(c.n) FROM c WHERE c.n > 1000", **q)) == [None]


def test_group_by(filled):
    """GROUP BY within one logical partition is served whole by the gateway. Across partitions
    azure-cosmos 4.17.1 cannot run it: it does not list GroupBy (nor NonValueAggregate) among its
    query features, so the plan request is refused as the service refuses it, and aggregates
    without VALUE are refused by the gateway before any plan, on one range as on five."""
    c, _, items = filled
    rows = list(c.query_items(
        "SELECT c.cat, COUNT(1) AS cnt, SUM(c.n) AS total, MIN(c.n) AS lo, MAX(c.n) AS hi, AVG(c.n) AS mean "
        "FROM c GROUP BY c.cat", partition_key="p1"))
    want = {}
    for it in items:
        if it["pk"] == "p1":
            want.setdefault(it["cat"], []).append(it["n"])
    assert sorted(rows, key=lambda r: r["cat"]) == [
        {"cat": k, "cnt": len(v), "total": sum(v), "lo": min(v), "hi": max(v), "mean": statistics.mean(v)}
        for k, v in sorted(want.items())]

    with pytest.raises(exceptions.CosmosHttpResponseError) as err:
        list(c.query_items("SELECT VALUE c.cat FROM c GROUP BY c.cat", enable_cross_partition_query=True))
    assert err.value.status_code == 400
    assert "Query contained GroupBy, which the calling client does not support" in err.value.message
    for q in ["SELECT c.cat, COUNT(1) AS cnt FROM c GROUP BY c.cat", "SELECT COUNT(1) AS n FROM c"]:
        with pytest.raises(exceptions.CosmosHttpResponseError) as err:
            list(c.query_items(q, enable_cross_partition_query=True))
        assert err.value.status_code == 400
        assert "Cross partition query only supports 'VALUE <AggregateFunc>' for aggregates" in err.value.message
    assert list(c.query_items("SELECT COUNT(1) AS n FROM c", partition_key="p2")) == [{"n": N // 4}]


def test_parameters_and_udf_free_filters(filled):
    c, _, items = filled
    got = list(c.query_items("SELECT VALUE c.id FROM c WHERE c.cat = @cat AND c.n < @lim ORDER BY c.n",
                             parameters=[{"name": "@cat", "value": "c1"}, {"name": "@lim", "value": 20}],
                             enable_cross_partition_query=True))
    assert got == [it["id"] for it in items if it["cat"] == "c1" and it["n"] < 20]


def test_query_per_feed_range(filled):
    """A query scoped to each feed range (the SDK names the range, and the EPK bounds only for a
    strict sub-range) returns that range's items; together, every item exactly once."""
    c, ranges, items = filled
    feed_ranges = list(c.read_feed_ranges())
    assert len(feed_ranges) == ranges
    seen = []
    for fr in feed_ranges:
        got = list(c.query_items("SELECT VALUE c.id FROM c", feed_range=fr))
        for id_ in got:
            pk = next(it["pk"] for it in items if it["id"] == id_)
            assert c.is_feed_range_subset(fr, c.feed_range_from_partition_key(pk))
        ordered = list(c.query_items("SELECT VALUE c.n FROM c ORDER BY c.n DESC", feed_range=fr))
        assert ordered == sorted(ordered, reverse=True) and len(ordered) == len(got)
        seen.extend(got)
    assert sorted(seen) == sorted(it["id"] for it in items)
    # a feed range of one partition key
    one = list(c.query_items("SELECT VALUE c.id FROM c", feed_range=c.feed_range_from_partition_key("p2")))
    assert sorted(one) == sorted(it["id"] for it in items if it["pk"] == "p2")
