"""Tests of the plugin itself: inner pytest sessions (pytester, in subprocesses) use its fixtures
against the real emulator binary ($COSMOS_EMULATOR_BIN, set by `make python-helper-test`)."""

import json
import os
import pathlib
import re
import socket

import pytest

# imported before pytester snapshots sys.modules, so that every test shares these modules
# (pytester drops what a test imported, and a second copy of http.cookiejar breaks requests)
import azure.cosmos  # noqa: F401
import requests  # noqa: F401

from pytest_cosmos_emulator import EmulatorError, start_emulator

EXAMPLE = '''
import json, os
from azure.cosmos import PartitionKey

def test_item_round_trip(cosmos_client, cosmos_endpoint, cosmos_key):
    db = cosmos_client.create_database_if_not_exists("app")
    c = db.create_container_if_not_exists("items", partition_key=PartitionKey("/pk"))
    c.upsert_item({"id": "1", "pk": "a", "n": 42})
    assert c.read_item("1", "a")["n"] == 42
    assert os.environ["COSMOS_ENDPOINT"] == cosmos_endpoint
    with open(os.environ["OUT"], "w") as f:
        json.dump({"endpoint": cosmos_endpoint, "key": cosmos_key}, f)
'''


def port_open(endpoint):
    host, port = endpoint.split("://")[1].rstrip("/").split(":")
    with socket.socket() as s:
        s.settimeout(1)
        return s.connect_ex((host, int(port))) == 0


def test_starts_the_binary_and_stops_it(pytester, monkeypatch, tmp_path):
    assert os.environ.get("COSMOS_EMULATOR_BIN"), "set COSMOS_EMULATOR_BIN (make python-helper-test does)"
    monkeypatch.delenv("COSMOS_EMULATOR_URL", raising=False)
    monkeypatch.setenv("OUT", str(tmp_path / "out.json"))
    pytester.makepyfile(test_example=EXAMPLE)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    seen = json.loads((tmp_path / "out.json").read_text())
    assert seen["endpoint"].startswith("http://127.0.0.1:")
    assert seen["key"].startswith("C2y6yDjf5/")
    # the session's end stopped the emulator
    assert not port_open(seen["endpoint"])


def test_uses_a_running_emulator_by_url(pytester, monkeypatch, tmp_path):
    with start_emulator(args=["--log-level", "warn"]) as emu:
        monkeypatch.setenv("COSMOS_EMULATOR_URL", emu.endpoint.rstrip("/"))
        monkeypatch.setenv("OUT", str(tmp_path / "out.json"))
        pytester.makepyfile(test_example=EXAMPLE)
        result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
        result.assert_outcomes(passed=1)
        assert json.loads((tmp_path / "out.json").read_text())["endpoint"] == emu.endpoint
        # a given emulator is left running, with what the session wrote
        assert port_open(emu.endpoint)
        with emu.client() as client:
            c = client.get_database_client("app").get_container_client("items")
            assert c.read_item("1", "a")["n"] == 42


def test_docs_example(pytester, monkeypatch):
    """The example of docs/testing-helpers.md's Python section, run as written."""
    doc = pathlib.Path(__file__).resolve().parents[3] / "docs" / "testing-helpers.md"
    section = doc.read_text().split("\n## Python: pytest-cosmos-emulator\n")[1].split("\n## ")[0]
    blocks = re.findall(r"(?ms)^```python\n(.*?)^```\n", section)
    assert len(blocks) == 1
    monkeypatch.delenv("COSMOS_EMULATOR_URL", raising=False)
    pytester.makepyfile(test_doc=blocks[0])
    pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_https():
    with start_emulator(protocol="https") as emu:
        assert emu.endpoint.startswith("https://127.0.0.1:")
        with emu.client() as client:
            assert client.create_database("tls").read()["id"] == "tls"


def test_missing_binary_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("COSMOS_EMULATOR_BIN", "/nonexistent/cosmos-emulator")
    with pytest.raises(EmulatorError, match="COSMOS_EMULATOR_BIN"):
        start_emulator()
