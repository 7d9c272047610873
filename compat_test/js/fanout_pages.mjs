// The pages of a plain cross-partition query the gateway fans out itself:
// the scenario of @azure/cosmos's own cross-partition test (20 items with
// ids "sample document0..19" under partition key /id, SELECT * FROM root r,
// maxItemCount 2), read with the async iterator and with fetchNext, on a
// container created with THROUGHPUT RU/s. Prints:
//   "ASYNC <n> <n> ..."         each page's item count from getAsyncIterator()
//   "AFTER <k>"                 how many pages came after the one holding the last item
//   "NEXT <n>/<more> ..."       each fetchNext's item count and hasMoreResults
//   "IDS <id> ..."              the ids read through fetchNext, sorted
//   "RANGES <n>"                the container's partition key range count
//
//   COSMOS_ENDPOINT, COSMOS_DB  (required); THROUGHPUT (default 25100)
import { CosmosClient } from "@azure/cosmos";
import { endpoint, key, requireDatabase, startWatchdog } from "./emulator.mjs";

const dbId = requireDatabase();
startWatchdog("fanout_pages", 90);
const throughput = Number(process.env.THROUGHPUT || 25100);

const client = new CosmosClient({ endpoint, key });
const { database } = await client.databases.create({ id: dbId });
const { container } = await database.containers.create({ id: "c", partitionKey: { paths: ["/id"] }, throughput });
const { resources: ranges } = await container.readPartitionKeyRanges().fetchAll();
console.log(`RANGES ${ranges.length}`);
for (let i = 0; i < 20; i++) {
  await container.items.create({ id: `sample document${i}`, spam: "eggs" + i, cnt: i });
}

const query = "SELECT * FROM root r";
const options = { maxItemCount: 2 };

const sizes = [];
let seen = 0;
let after = 0;
for await (const { resources } of container.items.query(query, options).getAsyncIterator()) {
  if (seen === 20) after++;
  sizes.push(resources.length);
  seen += resources.length;
}
console.log(`ASYNC ${sizes.join(" ")}`);
console.log(`AFTER ${after}`);

const it = container.items.query(query, options);
const pages = [];
const ids = [];
for (let i = 0; it.hasMoreResults(); i++) {
  if (i === 100) throw new Error("the query does not end");
  const res = await it.fetchNext();
  const got = res.resources ?? [];
  pages.push(`${got.length}/${res.hasMoreResults}`);
  ids.push(...got.map((d) => d.id));
}
console.log(`NEXT ${pages.join(" ")}`);
console.log(`IDS ${ids.sort().join(",")}`);
await database.delete();
