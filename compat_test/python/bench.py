"""Throughput of azure-cosmos against the emulator at one client (run by `make python-bench`).

Phases, each --n operations after a short warm-up, one synchronous client on one connection pool:
  read   point reads of 100 items
  mix    create 25 / read 40 / replace 20 / query 15 % (the query: one item by id in its partition)
  health GET /_emulator/health through requests (the floor of any HTTPS request from Python)
Prints ops/s and p50 per phase, and the HTTP requests per operation seen on the wire.
"""

import argparse
import random
import statistics
import time
import uuid

import requests

from conftest import ENDPOINT, CountingTransport, new_client


def timed(n, op):
    lat = []
    start = time.perf_counter()
    for i in range(n):
        t0 = time.perf_counter()
        op(i)
        lat.append(time.perf_counter() - t0)
    wall = time.perf_counter() - start
    return n / wall, statistics.median(lat) * 1000


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2000)
    args = ap.parse_args()
    transport = CountingTransport()
    with new_client(transport=transport) as client:
        db = client.create_database_if_not_exists("pybench")
        c = db.create_container_if_not_exists("items", partition_key={"paths": ["/pk"], "kind": "Hash"})
        for i in range(100):
            c.upsert_item({"id": f"r{i}", "pk": f"p{i % 10}", "v": i, "pad": "x" * 200})
        for i in range(100):  # warm-up (caches, connections)
            c.read_item(f"r{i}", f"p{i % 10}")

        transport.clear()
        rate, p50 = timed(args.n, lambda i: c.read_item(f"r{i % 100}", f"p{i % 10}"))
        print(f"read   {rate:8.0f} ops/s  p50 {p50:.3f} ms  requests/op {len(transport.log) / args.n:.2f}")

        rnd = random.Random(7)
        created = []

        def mix(i):
            x = rnd.random()
            if x < 0.25 or not created:
                doc = {"id": uuid.uuid4().hex, "pk": f"p{i % 10}", "v": i, "pad": "x" * 200}
                c.create_item(doc)
                created.append(doc)
            elif x < 0.65:
                d = rnd.choice(created)
                c.read_item(d["id"], d["pk"])
            elif x < 0.85:
                d = rnd.choice(created)
                c.replace_item(d["id"], dict(d, v=i))
            else:
                d = rnd.choice(created)
                list(c.query_items("SELECT * FROM c WHERE c.id = @id", parameters=[{"name": "@id", "value": d["id"]}],
                                   partition_key=d["pk"]))

        transport.clear()
        rate, p50 = timed(args.n, mix)
        print(f"mix    {rate:8.0f} ops/s  p50 {p50:.3f} ms  requests/op {len(transport.log) / args.n:.2f}")
        client.delete_database(db)

    with requests.Session() as s:
        s.verify = False
        url = ENDPOINT + "_emulator/health"
        for _ in range(100):
            s.get(url, verify=False)
        rate, p50 = timed(args.n, lambda i: s.get(url, verify=False))
        print(f"health {rate:8.0f} ops/s  p50 {p50:.3f} ms")


if __name__ == "__main__":
    main()
