"""Partition key range splits (the emulator's control endpoint) in the middle of paged queries and
of a change feed read: what azure-cosmos does across them (docs/partitioning.md, SDK by SDK)."""

from conftest import control, make_container


def split(container, range_id):
    db = container.container_link.split("/")[1]
    return control("POST", f"_emulator/dbs/{db}/colls/{container.id}/pkranges/{range_id}/split", {})


def live_range_ids(container):
    return sorted(r["id"] for r in container.client_connection._ReadPartitionKeyRanges(container.container_link))


def fill(container, n=60):
    for i in range(n):
        container.create_item({"id": f"i{i:03d}", "pk": f"k{i}", "n": i})
    return [f"i{i:03d}" for i in range(n)]


def test_split_during_paged_queries(database):
    c = make_container(database)
    try:
        want = fill(c)
        plain = c.query_items("SELECT VALUE c.id FROM c", max_item_count=10, enable_cross_partition_query=True).by_page()
        ordered = c.query_items("SELECT VALUE c.id FROM c ORDER BY c.n", max_item_count=10,
                                enable_cross_partition_query=True).by_page()
        got_plain = list(next(plain)) + list(next(plain))
        got_ordered = list(next(ordered)) + list(next(ordered))
        assert len(list(c.read_feed_ranges())) == 1
        children = split(c, "0")
        assert len(children["PartitionKeyRanges"]) == 2
        for page in plain:
            got_plain.extend(page)
        for page in ordered:
            got_ordered.extend(page)
        # served by the gateway without a range id: the split is invisible, each item once
        assert sorted(got_plain) == want and len(got_plain) == len(want)
        # run by the SDK's pipeline (ORDER BY) against range "0": the 410/1002 makes
        # azure-cosmos 4.17.1 rebuild the split range's document producers for the children
        # without the parent's continuation (multi_execution_aggregator.py
        # _repair_document_producer), so the children are read from their start and the items
        # already returned come again; the same happens against the service
        # (docs/compatibility.md). Every item comes, the last len(want) in order.
        assert set(got_ordered) == set(want)
        assert got_ordered[-len(want):] == want
        # a new query sees the two children
        assert len(list(c.read_feed_ranges())) == 2
        assert sorted(c.query_items("SELECT VALUE c.id FROM c ORDER BY c.n DESC",
                                    enable_cross_partition_query=True)) == want
    finally:
        database.delete_container(c)


def test_split_during_pipelined_queries(database):
    """COUNT, DISTINCT and OFFSET LIMIT run by the SDK's pipeline against range "0", one page read
    before the split: the emulator answers the gone range 410/1002 as the service does, and
    azure-cosmos 4.17.1 restarts the children without the parent's continuation
    (multi_execution_aggregator.py _repair_document_producer)."""
    c = make_container(database)
    try:
        fill(c, 30)
        queries = {
            "count": "SELECT VALUE COUNT(1) FROM c",
            "distinct": "SELECT DISTINCT VALUE c.n % 5 FROM c",
            "offset": "SELECT VALUE c.n FROM c ORDER BY c.n OFFSET 5 LIMIT 20",
        }
        pagers = {k: c.query_items(q, max_item_count=3, enable_cross_partition_query=True).by_page()
                  for k, q in queries.items()}
        got = {k: list(next(p)) for k, p in pagers.items()}
        split(c, "0")
        for k, p in pagers.items():
            for page in p:
                got[k].extend(page)
        # an aggregate drains every range for its first page: the split comes after it
        assert got["count"] == [30]
        # the restarted children's repeats are what DISTINCT removes
        assert sorted(got["distinct"]) == [0, 1, 2, 3, 4]
        # OFFSET counts the repeats: after the 4 results read before the split, the restart
        # yields 0.. again (the same on the service), 20 results but not 5..24
        assert got["offset"] == [5, 6, 7, 8] + list(range(16))
    finally:
        database.delete_container(c)


def test_split_during_change_feed(database):
    c = make_container(database)
    try:
        want = fill(c)
        pager = c.query_items_change_feed(start_time="Beginning", max_item_count=10).by_page()
        got = list(next(pager)) + list(next(pager))
        split(c, "0")
        for page in pager:
            got.extend(page)
        ids = [i["id"] for i in got]
        assert sorted(ids) == want and len(ids) == len(want)
        # resuming after the split from the SDK's continuation yields only what is new
        token = c.client_connection.last_response_headers["etag"]
        c.create_item({"id": "after", "pk": "k-after"})
        rest = [i["id"] for i in c.query_items_change_feed(continuation=token)]
        assert rest == ["after"]
    finally:
        database.delete_container(c)
