"""Injected 429 and 503 (the emulator's /_emulator/faults) that the SDK retries on its own."""

import pytest
from azure.cosmos import exceptions

from conftest import control, new_client


@pytest.fixture
def fault():
    """Sets fault rules by name; removes them after the test."""
    names = []

    def put(name, rule):
        names.append(name)
        control("PUT", f"_emulator/faults/{name}", rule)

    yield put
    for n in names:
        control("DELETE", f"_emulator/faults/{n}", expect=(204, 404))


def hits(name):
    return control("GET", f"_emulator/faults/{name}")["hits"]


def test_429_retried_transparently(container, fault):
    container.create_item({"id": "x", "pk": "p", "v": 1})
    fault("py-429-read", {"match": {"operation": "Read", "container": container.id, "id": "x"},
                          "response": {"status": 429, "substatus": 3200, "retryAfterMs": 20}, "count": 3})
    got = container.read_item("x", "p")
    assert got["v"] == 1
    assert hits("py-429-read") == 3
    # the answer the SDK returns is the success after its retries
    assert got.get_response_headers()["x-ms-session-token"]
    # a throttled write is retried too, and lands once
    fault("py-429-write", {"match": {"operation": "Create", "container": container.id},
                           "response": {"status": 429, "retryAfterMs": 10}, "count": 2})
    container.create_item({"id": "y", "pk": "p"})
    assert hits("py-429-write") == 2
    assert [i["id"] for i in container.query_items("SELECT * FROM c WHERE c.id = 'y'", partition_key="p")] == ["y"]


def test_429_exhausted_surfaces(container, fault):
    container.create_item({"id": "x", "pk": "p"})
    fault("py-429-all", {"match": {"operation": "Read", "container": container.id},
                         "response": {"status": 429, "retryAfterMs": 5}})
    with new_client(retry_total=2) as c:
        cc = c.get_database_client(container.container_link.split("/")[1]).get_container_client(container.id)
        with pytest.raises(exceptions.CosmosHttpResponseError) as err:
            cc.read_item("x", "p")
    assert err.value.status_code == 429
    assert hits("py-429-all") == 3  # the first try and two retries


def test_503_retried_once(container, fault):
    container.create_item({"id": "x", "pk": "p", "v": 7})
    fault("py-503-once", {"match": {"operation": "Read", "container": container.id},
                          "response": {"status": 503}, "count": 1})
    assert container.read_item("x", "p")["v"] == 7
    assert hits("py-503-once") == 1
    # with one region the SDK tries a read twice (the region, then the same region again)
    fault("py-503-always", {"match": {"operation": "Read", "container": container.id},
                            "response": {"status": 503}})
    with pytest.raises(exceptions.CosmosHttpResponseError) as err:
        container.read_item("x", "p")
    assert err.value.status_code == 503
    assert hits("py-503-always") == 2
