// The all versions and deletes change feed cannot start from the
// beginning, through @azure/cosmos: ChangeFeedStartFrom.Beginning() in
// ChangeFeedMode.AllVersionsAndDeletes (the SDK sends neither If-None-Match
// nor If-Modified-Since) fails with the service's 400 for the whole
// container, a partition key and a feed range; from now, from a point in
// time and from a continuation it reads, and the latest version feed still
// starts from the beginning. Prints one line per case; compat_test's
// TestJSAllVersionsAndDeletesFromBeginning checks them.
//
//   COSMOS_ENDPOINT  http://127.0.0.1:PORT/ (required)
//   COSMOS_KEY       default the well-known emulator key
//   COSMOS_DB        database id to create (required)
import { CosmosClient, ChangeFeedMode, ChangeFeedStartFrom, StatusCodes } from "@azure/cosmos";
import { endpoint, key, requireDatabase, startWatchdog } from "./emulator.mjs";

const dbId = requireDatabase();
startWatchdog("changefeed_avad_beginning", 60);

const client = new CosmosClient({ endpoint, key });
const { database } = await client.databases.create({ id: dbId });
const { container } = await database.containers.create({ id: "c", partitionKey: { paths: ["/pk"] } });

const avad = { changeFeedMode: ChangeFeedMode.AllVersionsAndDeletes, maxItemCount: 10 };
// The point in time: a minute before the writes (the header has whole
// seconds).
const before = new Date(Date.now() - 60_000);
const fromNow = container.items.getChangeFeedIterator({ ...avad, changeFeedStartFrom: ChangeFeedStartFrom.Now() });
const first = await fromNow.readNext();
console.log(`now ${first.statusCode}`);
await container.items.create({ id: "a", pk: "p" });
await container.items.create({ id: "b", pk: "q" });

// drain reads it until a 304 and returns "status ids" (ids of current or
// metadata), or "error <code> <message>" when a read fails.
async function drain(it) {
  const ids = [];
  try {
    for (let i = 0; i < 20; i++) {
      const res = await it.readNext();
      if (res.statusCode === StatusCodes.NotModified) return `ok ${ids.join(",")}`;
      for (const ch of res.result) ids.push(ch.current?.id ?? ch.metadata?.id ?? ch.id);
    }
    return "the feed does not end";
  } catch (err) {
    return `error ${err.code} ${err.message}`;
  }
}

const [range] = await container.getFeedRanges();
for (const [name, from] of [
  ["beginning", ChangeFeedStartFrom.Beginning()],
  ["beginning p", ChangeFeedStartFrom.Beginning("p")],
  ["beginning range", ChangeFeedStartFrom.Beginning(range)],
  ["time", ChangeFeedStartFrom.Time(before)],
  ["time p", ChangeFeedStartFrom.Time(before, "p")],
]) {
  console.log(`${name}: ${await drain(container.items.getChangeFeedIterator({ ...avad, changeFeedStartFrom: from }))}`);
}
console.log(`now: ${await drain(fromNow)}`);
await container.items.create({ id: "c", pk: "p" });
const token = (await fromNow.readNext()).continuationToken;
await container.items.create({ id: "d", pk: "q" });
const resumed = container.items.getChangeFeedIterator({ ...avad, changeFeedStartFrom: ChangeFeedStartFrom.Continuation(token) });
console.log(`continuation: ${await drain(resumed)}`);
const latest = container.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning() });
console.log(`latest version beginning: ${await drain(latest)}`);
await database.delete();
