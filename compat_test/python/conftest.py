"""Shared fixtures of the azure-cosmos (Python SDK) compatibility suite.

The suite runs against the emulator named by COSMOS_ENDPOINT (default
https://127.0.0.1:8081/, the endpoint scripts/sdk-tests/with-emulator.sh sets)
with the emulator's well-known key. `make python-sdk-tests` starts one.
"""

import base64
import hashlib
import hmac
import json
import os
import urllib.parse
import uuid
from email.utils import formatdate

import pytest
import requests
import urllib3
from azure.core.pipeline.transport import RequestsTransport
from azure.cosmos import CosmosClient, PartitionKey

urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)

ENDPOINT = os.environ.get("COSMOS_ENDPOINT", "https://127.0.0.1:8081/")
KEY = os.environ.get(
    "COSMOS_KEY",
    "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==",
)

# Throughputs that give a container one partition key range and five: the
# emulator sizes manual throughput above 10,000 RU/s as ceil(RU/s / 6,000)
# ranges, as the service sizes physical partitions (docs/partitioning.md).
RANGES_BY_THROUGHPUT = {400: 1, 30000: 5}


def unique(prefix):
    """A resource id unique to this run."""
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def control(method, path, body=None, expect=(200, 201, 204)):
    """Sends a master-key signed request to an /_emulator/ control endpoint.

    The signed resource type and link follow the generic path rule: for an
    odd number of segments the type is the last one and the link the rest,
    for an even number the type is the last but one and the link the path.
    """
    segs = [s for s in path.split("/") if s]
    if len(segs) % 2 == 1:
        rtype, link = segs[-1], "/".join(segs[:-1])
    else:
        rtype, link = segs[-2], "/".join(segs)
    date = formatdate(usegmt=True)
    text = f"{method.lower()}\n{rtype.lower()}\n{link}\n{date.lower()}\n\n"
    sig = base64.b64encode(
        hmac.new(base64.b64decode(KEY), text.encode(), hashlib.sha256).digest()
    ).decode()
    resp = requests.request(
        method,
        urllib.parse.urljoin(ENDPOINT, path),
        headers={
            "x-ms-date": date,
            "content-type": "application/json",
            "authorization": urllib.parse.quote(f"type=master&ver=1.0&sig={sig}", safe=""),
        },
        data=None if body is None else json.dumps(body),
        verify=False,
        timeout=60,
    )
    assert resp.status_code in expect, f"{method} {path}: {resp.status_code} {resp.text}"
    return resp.json() if resp.content else None


class CountingTransport(RequestsTransport):
    """A requests transport that records every HTTP request the SDK sends.

    `log` holds (method, path, headers) in order, `responses` the (status, substatus) of each
    answer; `clear()` empties both.
    """

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.log = []
        self.responses = []

    def send(self, request, **kwargs):
        url = urllib.parse.urlsplit(request.url)
        self.log.append((request.method, url.path, dict(request.headers)))
        response = super().send(request, **kwargs)
        self.responses.append((response.status_code, response.headers.get("x-ms-substatus")))
        return response

    def clear(self):
        self.log.clear()
        self.responses.clear()

    def paths(self):
        return [(m, p) for m, p, _ in self.log]


def new_client(**kwargs):
    """A sync CosmosClient for the emulator (the SDK skips TLS verification for 127.0.0.1)."""
    return CosmosClient(ENDPOINT, credential=kwargs.pop("credential", KEY), **kwargs)


@pytest.fixture(scope="session")
def client():
    with new_client() as c:
        yield c


@pytest.fixture(scope="session")
def database(client):
    db = client.create_database(unique("pydb"))
    yield db
    client.delete_database(db)


@pytest.fixture
def counting():
    """A fresh client whose every HTTP request is recorded: yields (client, transport)."""
    transport = CountingTransport()
    with new_client(transport=transport) as c:
        yield c, transport


def make_container(database, throughput=400, pk="/pk", **kwargs):
    return database.create_container(
        unique("c"), partition_key=PartitionKey(path=pk), offer_throughput=throughput, **kwargs
    )


@pytest.fixture(params=sorted(RANGES_BY_THROUGHPUT), ids=lambda t: f"{RANGES_BY_THROUGHPUT[t]}range")
def ranged(request, database):
    """A container with 1 or 5 partition key ranges (by throughput): yields (container, ranges).

    Its indexing policy has the composite index a two-key ORDER BY needs (the service refuses
    such a query without one, and so does the emulator)."""
    c = make_container(database, throughput=request.param, indexing_policy={
        "indexingMode": "consistent", "includedPaths": [{"path": "/*"}],
        "compositeIndexes": [[{"path": "/cat", "order": "ascending"}, {"path": "/n", "order": "descending"}]]})
    yield c, RANGES_BY_THROUGHPUT[request.param]
    database.delete_container(c)


@pytest.fixture
def container(database):
    """A fresh 400 RU/s container partitioned on /pk."""
    c = make_container(database)
    yield c
    database.delete_container(c)
