"""pytest fixtures for cosmos-emulator.

- `cosmos_emulator` (session): an `Emulator`. With $COSMOS_EMULATOR_URL set, that running
  emulator (nothing is started or stopped); otherwise the binary ($COSMOS_EMULATOR_BIN or
  `cosmos-emulator` on PATH) started with --ephemeral on a free port of 127.0.0.1, plain http
  unless $COSMOS_EMULATOR_PROTOCOL says https, extra flags from $COSMOS_EMULATOR_ARGS (split
  like a shell), stopped after the session. It also sets COSMOS_ENDPOINT and COSMOS_KEY.
- `cosmos_endpoint`, `cosmos_key` (session): its endpoint and key.
- `cosmos_client` (session): a ready `azure.cosmos.CosmosClient`.
"""

from __future__ import annotations

import os
import shlex

import pytest

from .emulator import EMULATOR_KEY, Emulator, _healthy, start_emulator


def pytest_addoption(parser):
    parser.addini("cosmos_emulator_args", "extra flags for the cosmos-emulator binary", type="args", default=[])


@pytest.fixture(scope="session")
def cosmos_emulator(pytestconfig):
    url = os.environ.get("COSMOS_EMULATOR_URL")
    if url:
        endpoint = url if url.endswith("/") else url + "/"
        if not _healthy(endpoint):
            pytest.fail(f"COSMOS_EMULATOR_URL={url}: GET /_emulator/health does not answer 200")
        emu = Emulator(endpoint=endpoint, key=os.environ.get("COSMOS_EMULATOR_KEY", EMULATOR_KEY))
    else:
        args = list(pytestconfig.getini("cosmos_emulator_args")) + shlex.split(os.environ.get("COSMOS_EMULATOR_ARGS", ""))
        emu = start_emulator(args=args, protocol=os.environ.get("COSMOS_EMULATOR_PROTOCOL", "http"))
    saved = {k: os.environ.get(k) for k in ("COSMOS_ENDPOINT", "COSMOS_KEY")}
    os.environ["COSMOS_ENDPOINT"], os.environ["COSMOS_KEY"] = emu.endpoint, emu.key
    try:
        yield emu
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        emu.stop()


@pytest.fixture(scope="session")
def cosmos_endpoint(cosmos_emulator):
    return cosmos_emulator.endpoint


@pytest.fixture(scope="session")
def cosmos_key(cosmos_emulator):
    return cosmos_emulator.key


@pytest.fixture(scope="session")
def cosmos_client(cosmos_emulator):
    client = cosmos_emulator.client()
    with client:
        yield client
