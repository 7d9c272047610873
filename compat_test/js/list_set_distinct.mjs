// MAKELIST / MAKESET and DISTINCT with ORDER BY and OFFSET/LIMIT or TOP
// through @azure/cosmos's query pipeline (compat_test's
// TestJSListSetDistinct runs it). For each container of CONTAINERS
// ("id:throughput,..."), partitioned by /id, it writes 30 items (names A,
// B, C with ages 1..10 each, written name by name) and runs every query
// with maxItemCount 2 through a fetchNext loop, fetchAll and the async
// iterator (getAsyncIterator). It prints:
//   "RANGES <container> <n>"               the container's partition key ranges
//   "NEXT <container>/<name> <results>"    what the fetchNext loop returned
//   "ALL <container>/<name> <results>"     what fetchAll returned
//   "ITER <container>/<name> <results>"    what the async iterator returned
//   "ERR <container>/<name> <status> <message>" when a query is refused
// Results are JSON separated by spaces, in the order returned; MAKELIST and
// MAKESET results are also printed with their arrays sorted and the
// results in the order of their JSON ("SNEXT", "SALL", "SITER"
// <container>/<name> <results>), since over several ranges the order of
// the lists and of the groups is the merge's.
//
//   COSMOS_ENDPOINT  http://127.0.0.1:PORT/ (required)
//   COSMOS_DB        database id to create (required)
//   CONTAINERS       containers to create, "id:throughput" comma-separated
import { CosmosClient } from "@azure/cosmos";
import { endpoint, key, requireDatabase, startWatchdog } from "./emulator.mjs";

const dbId = requireDatabase();
startWatchdog("list_set_distinct", 240);

const client = new CosmosClient({ endpoint, key });
const { database } = await client.databases.create({ id: dbId });

const queries = [
  ["makelist", "SELECT VALUE MAKELIST(c.age) FROM c"],
  ["makeset", "SELECT VALUE MAKESET(c.age) FROM c"],
  ["makesetgroupby", "SELECT c.name, MakeSet(c.age) AS ages FROM c GROUP BY c.name"],
  ["makelistgroupby", "SELECT c.name, MakeList(c.age) AS ages FROM c WHERE c.age > 7 GROUP BY c.name"],
  ["distinctoffsetlimit", "SELECT DISTINCT c.age FROM c ORDER BY c.age ASC OFFSET 0 LIMIT 10"],
  ["distincttop", "SELECT DISTINCT TOP 10 c.age FROM c ORDER BY c.age ASC"],
  ["distinctvaluedesc", "SELECT DISTINCT VALUE c.age FROM c ORDER BY c.age DESC OFFSET 2 LIMIT 5"],
];

const show = (rs) => rs.map((r) => JSON.stringify(r)).join(" ");
// sortDeep sorts every array of a result (numbers by value)
const sortDeep = (v) => {
  if (Array.isArray(v)) {
    const out = v.map(sortDeep);
    return out.every((x) => typeof x === "number") ? out.sort((a, b) => a - b) : out;
  }
  if (v && typeof v === "object") {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, sortDeep(x)]));
  }
  return v;
};

// sorted prints results with their arrays sorted, in the order of their
// JSON (groups come in no specified order)
const sorted = (rs) => rs.map((r) => JSON.stringify(sortDeep(r))).sort().join(" ");

for (const spec of (process.env.CONTAINERS || "c:400").split(",")) {
  const [id, ru] = spec.split(":");
  const { container } = await database.containers.create({
    id,
    partitionKey: { paths: ["/id"], version: 2 },
    throughput: Number(ru),
  });
  const ranges = await container.readPartitionKeyRanges().fetchAll();
  console.log(`RANGES ${id} ${ranges.resources.length}`);
  let n = 0;
  for (const name of ["A", "B", "C"]) {
    for (let age = 1; age <= 10; age++) {
      n++;
      await container.items.create({ id: `i${String(n).padStart(2, "0")}`, name, age });
    }
  }
  for (const [name, query] of queries) {
    const label = `${id}/${name}`;
    try {
      const next = [];
      const it = container.items.query(query, { maxItemCount: 2 });
      while (it.hasMoreResults()) {
        const { resources } = await it.fetchNext();
        next.push(...(resources || []));
      }
      console.log(`NEXT ${label} ${show(next)}`);
      const { resources: all } = await container.items.query(query, { maxItemCount: 2 }).fetchAll();
      console.log(`ALL ${label} ${show(all)}`);
      const iter = [];
      for await (const page of container.items.query(query, { maxItemCount: 2 }).getAsyncIterator()) {
        iter.push(...(page.resources || []));
      }
      console.log(`ITER ${label} ${show(iter)}`);
      if (name.startsWith("make")) {
        console.log(`SNEXT ${label} ${sorted(next)}`);
        console.log(`SALL ${label} ${sorted(all)}`);
        console.log(`SITER ${label} ${sorted(iter)}`);
      }
    } catch (err) {
      console.log(`ERR ${label} ${err.code} ${String(err.message).split("\n")[0]}`);
    }
  }
}
