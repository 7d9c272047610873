"""Hierarchical partition keys (MultiHash) over one and five ranges, and deleting a logical
partition (answered at once, done in the background, as on the service)."""

import time

import pytest
from azure.cosmos import PartitionKey

from conftest import RANGES_BY_THROUGHPUT, unique


@pytest.fixture(params=sorted(RANGES_BY_THROUGHPUT), ids=lambda t: f"{RANGES_BY_THROUGHPUT[t]}range")
def multihash(request, database):
    c = database.create_container(unique("h"), partition_key=PartitionKey(path=["/t", "/u"], kind="MultiHash"),
                                  offer_throughput=request.param)
    for i in range(20):
        c.create_item({"id": f"h{i:02d}", "t": f"t{i % 2}", "u": f"u{i % 5}", "n": i})
    yield c
    database.delete_container(c)


def wait_for(fn, want, seconds=20):
    deadline = time.time() + seconds
    while True:
        got = fn()
        if got == want or time.time() > deadline:
            return got
        time.sleep(0.2)


def test_hierarchical_keys(multihash):
    c = multihash
    assert c.read()["partitionKey"]["kind"] == "MultiHash"
    assert c.read_item("h03", ["t1", "u3"])["n"] == 3
    full = sorted(x["id"] for x in c.query_items("SELECT * FROM c", partition_key=["t1", "u3"]))
    assert full == ["h03", "h13"]
    # a prefix of the key reads every logical partition under it
    prefix = list(c.query_items("SELECT VALUE c.n FROM c ORDER BY c.n", partition_key=["t1"]))
    assert prefix == list(range(1, 20, 2))
    feed = [x["id"] for x in c.query_items_change_feed(start_time="Beginning", partition_key=["t0"])]
    assert sorted(feed) == [f"h{i:02d}" for i in range(0, 20, 2)]
    assert list(c.query_items("SELECT VALUE COUNT(1) FROM c", enable_cross_partition_query=True)) == [20]

    c.delete_all_items_by_partition_key(["t0", "u0"])
    assert wait_for(lambda: list(c.query_items("SELECT VALUE c.id FROM c", partition_key=["t0", "u0"])), []) == []
    assert wait_for(lambda: list(c.query_items("SELECT VALUE COUNT(1) FROM c", enable_cross_partition_query=True)),
                    [18]) == [18]


def test_delete_all_items_by_partition_key(container):
    for i in range(30):
        container.create_item({"id": f"d{i}", "pk": "gone" if i % 3 else "kept"})
    container.delete_all_items_by_partition_key("gone")
    assert wait_for(lambda: list(container.query_items("SELECT VALUE COUNT(1) FROM c", partition_key="gone")),
                    [0]) == [0]
    assert list(container.query_items("SELECT VALUE COUNT(1) FROM c", partition_key="kept")) == [10]
