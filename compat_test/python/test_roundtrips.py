"""HTTP round trips the SDK makes per operation, counted on the wire (a transport that records
every request). The figures are in docs/benchmarks.md; an extra round trip here is a defect."""

import time

import pytest

from conftest import RANGES_BY_THROUGHPUT, CountingTransport, make_container, new_client


@pytest.mark.parametrize("throughput", sorted(RANGES_BY_THROUGHPUT), ids=lambda t: f"{RANGES_BY_THROUGHPUT[t]}range")
def test_round_trips(database, throughput):
    ranges = RANGES_BY_THROUGHPUT[throughput]
    setup = make_container(database, throughput=throughput)
    try:
        for i in range(30):
            setup.create_item({"id": f"i{i:02d}", "pk": f"p{i % 3}", "n": i})
        transport = CountingTransport()
        with new_client(transport=transport) as client:
            # the client reads the account (GET /) when it is built, then checks the health of
            # each endpoint the account lists (here one) on a background thread: a second GET /
            deadline = time.time() + 10
            while len(transport.log) < 2 and time.time() < deadline:
                time.sleep(0.05)
            time.sleep(0.2)
            assert transport.paths() == [("GET", "/"), ("GET", "/")]
            c = client.get_database_client(database.id).get_container_client(setup.id)
            transport.clear()

            # warm-up, once per client and container: the first item operation reads the
            # container's properties (its partition key definition); the first one sent with a
            # session token (so the second) resolves its partition key range, which reads the
            # ranges (GET pkranges, then its incremental form answering 304) unless another client
            # of this process already did (the SDK shares that cache per endpoint)
            coll = f"/dbs/{database.id}/colls/{setup.id}/"
            docs, pkranges = coll + "docs/", coll + "pkranges/"
            c.read_item("i01", "p1")
            assert transport.paths() == [("GET", coll), ("GET", docs + "i01/")]
            transport.clear()
            c.read_item("i02", "p2")
            assert transport.paths() in ([("GET", docs + "i02/")],
                                         [("GET", pkranges), ("GET", pkranges), ("GET", docs + "i02/")])

            def count(fn):
                transport.clear()
                fn()
                return transport.paths()

            # point operations: one request each, no account or range reads around them
            for i in range(10):
                assert count(lambda: c.read_item(f"i{i:02d}", f"p{i % 3}")) == [("GET", docs + f"i{i:02d}/")]
            assert count(lambda: c.create_item({"id": "new", "pk": "p1"})) == [("POST", docs)]
            assert count(lambda: c.upsert_item({"id": "new", "pk": "p1", "v": 1})) == [("POST", docs)]
            assert count(lambda: c.replace_item("new", {"id": "new", "pk": "p1", "v": 2})) == [("PUT", docs + "new/")]
            assert count(lambda: c.delete_item("new", "p1")) == [("DELETE", docs + "new/")]

            # query pages: one request per page when the gateway serves the query whole
            for kwargs in (dict(partition_key="p1"), dict(enable_cross_partition_query=True)):
                pager = c.query_items("SELECT * FROM c", max_item_count=4, **kwargs).by_page()
                assert count(lambda: next(pager)) == [("POST", docs)]
                assert count(lambda: next(pager)) == [("POST", docs)]

            # a query the gateway cannot serve across partitions: the query (400/1004), the
            # plan, then one request per range; the SDK's pipeline reads a range's next page
            # ahead once it has taken that range's first page whole (one range here)
            pager = c.query_items("SELECT * FROM c ORDER BY c.n", max_item_count=4,
                                  enable_cross_partition_query=True).by_page()
            first = count(lambda: next(pager))
            assert all(p == ("POST", docs) for p in first)
            # the gateway refuses the query as the service does (400, substatus 1004), then
            # answers the plan request the SDK sends with its feature list
            assert transport.responses[0] == (400, "1004")
            assert transport.log[1][2].get("x-ms-cosmos-is-query-plan-request") == "True"
            assert "OrderBy" in transport.log[1][2].get("x-ms-cosmos-supported-query-features").split(",")
            assert transport.responses[1][0] == 200
            assert all(status == 200 for status, _ in transport.responses[2:])
            ids = [h.get("x-ms-documentdb-partitionkeyrangeid") for _, _, h in transport.log[2:]]
            assert ids[:ranges] == [str(i) for i in range(ranges)]
            assert len(first) == (2 + ranges if ranges > 1 else 4)
            assert len(count(lambda: next(pager))) <= 1
    finally:
        database.delete_container(setup)
