// Query grammar through @azure/cosmos's query pipeline (compat_test's
// TestGrammarJS runs it): LIKE with per-row patterns, SELECT * in
// subqueries, subqueries in the FROM of subqueries, deep nesting. For each
// container of CONTAINERS ("id:throughput,..."), partitioned by /id, it
// writes the items of ITEMS (a JSON array) and runs every query of QUERIES
// (a JSON array of {name, query, parameters}) with maxItemCount 2, through
// fetchAll and through a fetchNext loop. It prints:
//   "RANGES <container> <n>"                  the container's partition key ranges
//   "ALL <container>/<name> <results>"        fetchAll's results, a JSON array
//   "NEXT <container>/<name> <results>"       the fetchNext loop's results
//   "ERR <container>/<name> <status> <message>" when a query is refused
//
//   COSMOS_ENDPOINT  http://127.0.0.1:PORT/ (required)
//   COSMOS_DB        database id to create (required)
//   CONTAINERS, ITEMS, QUERIES as above
import { CosmosClient } from "@azure/cosmos";
import { endpoint, key, requireDatabase, startWatchdog } from "./emulator.mjs";

const dbId = requireDatabase();
startWatchdog("grammar", 240);

const client = new CosmosClient({ endpoint, key });
const { database } = await client.databases.create({ id: dbId });
const items = JSON.parse(process.env.ITEMS || "[]");
const queries = JSON.parse(process.env.QUERIES || "[]");

for (const spec of (process.env.CONTAINERS || "c:400").split(",")) {
  const [id, ru] = spec.split(":");
  const { container } = await database.containers.create({
    id,
    partitionKey: { paths: ["/id"], version: 2 },
    throughput: Number(ru),
  });
  const ranges = await container.readPartitionKeyRanges().fetchAll();
  console.log(`RANGES ${id} ${ranges.resources.length}`);
  for (const item of items) {
    await container.items.create(item);
  }
  for (const { name, query, parameters } of queries) {
    const label = `${id}/${name}`;
    const spec = { query, parameters: parameters || [] };
    try {
      const { resources: all } = await container.items.query(spec, { maxItemCount: 2 }).fetchAll();
      console.log(`ALL ${label} ${JSON.stringify(all)}`);
      const next = [];
      const it = container.items.query(spec, { maxItemCount: 2 });
      while (it.hasMoreResults()) {
        const { resources } = await it.fetchNext();
        next.push(...(resources || []));
      }
      console.log(`NEXT ${label} ${JSON.stringify(next)}`);
    } catch (err) {
      console.log(`ERR ${label} ${err.code} ${String(err.message).split("\n")[0]}`);
    }
  }
}
