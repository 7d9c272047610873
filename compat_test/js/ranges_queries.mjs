// Cross-partition queries through @azure/cosmos's query pipeline on a
// container with however many partition key ranges the emulator gives it
// (compat_test's TestJSRangesQueries runs this with 1, 4 and 7): 48 items
// over 24 partition keys, every shape the pipeline merges (ORDER BY on one
// and several keys, TOP, OFFSET/LIMIT, DISTINCT, VALUE and non-VALUE
// aggregates, GROUP BY) with maxItemCount 2, through a fetchNext loop and
// through fetchAll. It prints, per query:
//   "NEXT <name> <results>"  what the fetchNext loop returned
//   "ALL <name> <results>"   what fetchAll returned
//   "ERR <name> <status> <message>" when the query is refused
// Results are JSON; for shapes whose order the service leaves unspecified
// (no ORDER BY: plain SELECT, DISTINCT, GROUP BY) they are sorted, so the
// lines of two runs compare equal exactly when the result multisets are
// equal; TOP and OFFSET/LIMIT without ORDER BY pick rows the service
// leaves unspecified, so for those the line is the count and whether the
// rows are distinct items of the container ("SUBSET n ok"), and TOP over
// groups prints the count ("COUNT n").
// Before each query's fetchNext loop and fetchAll it sends
// "GET <endpoint>_mark/<name>/next" (or .../all) for the recording proxy.
//
//   COSMOS_ENDPOINT  http://127.0.0.1:PORT/ (required; the recording proxy)
//   COSMOS_KEY       default the well-known emulator key
//   COSMOS_DB        database id to create (required)
import { CosmosClient } from "@azure/cosmos";
import { endpoint, key, requireDatabase, startWatchdog, mark } from "./emulator.mjs";

const dbId = requireDatabase();
startWatchdog("ranges_queries", 240);

const client = new CosmosClient({ endpoint, key });
const { database } = await client.databases.create({ id: dbId });
const { container } = await database.containers.create({
  id: "c",
  partitionKey: { paths: ["/pk"], version: 2 },
  indexingPolicy: {
    compositeIndexes: [
      [{ path: "/g", order: "ascending" }, { path: "/n", order: "descending" }],
      [{ path: "/g", order: "descending" }, { path: "/id", order: "ascending" }],
    ],
  },
});
// 48 items over 24 partition keys. n is unique (so ORDER BY c.n has one
// order), g has five values and h three; every eighth item has no h (an
// undefined group key) and every sixth no s (skipped by aggregates).
const all = [];
for (let i = 0; i < 48; i++) {
  const n = (i * 7) % 48;
  const doc = { id: `i${String(i).padStart(2, "0")}`, pk: `p${i % 24}`, n, g: (n % 5) + 1, s: `s${(i * 11) % 13}` };
  if (i % 8 !== 0) doc.h = ["x", "y", "z"][i % 3];
  if (i % 6 === 0) delete doc.s;
  all.push(doc);
  await container.items.create(doc);
}
const ids = new Set(all.map((d) => d.id));

const pageSize = 2;
// [name, query, how results print: "ordered" | "sorted" | "subset" | "count"]
const queries = [
  ["select", "SELECT * FROM c", "sorted"],
  ["orderby", "SELECT * FROM c ORDER BY c.n", "ordered"],
  ["orderbydesc", "SELECT c.id, c.n FROM c ORDER BY c.n DESC", "ordered"],
  ["orderbyvalue", "SELECT VALUE c.s FROM c WHERE IS_DEFINED(c.s) ORDER BY c.n", "ordered"],
  ["orderbytwo", "SELECT c.id, c.g, c.n FROM c ORDER BY c.g ASC, c.n DESC", "ordered"],
  ["orderbytwomixed", "SELECT VALUE c.id FROM c ORDER BY c.g DESC, c.id ASC", "ordered"],
  ["orderbyfilter", "SELECT c.id FROM c WHERE c.n >= 10 AND c.n < 30 ORDER BY c.n DESC", "ordered"],
  ["top", "SELECT TOP 9 c.id FROM c", "subset"],
  ["topall", "SELECT TOP 100 c.id FROM c", "sorted"],
  ["orderbytop", "SELECT TOP 7 c.id, c.n FROM c ORDER BY c.n", "ordered"],
  ["orderbytopparam", { query: "SELECT TOP @t VALUE c.n FROM c ORDER BY c.n DESC", parameters: [{ name: "@t", value: 5 }] }, "ordered"],
  ["orderbytwotop", "SELECT TOP 11 VALUE c.id FROM c ORDER BY c.g ASC, c.n DESC", "ordered"],
  ["offsetlimit", "SELECT VALUE c.n FROM c ORDER BY c.n OFFSET 4 LIMIT 5", "ordered"],
  ["offsetlimitpast", "SELECT VALUE c.n FROM c ORDER BY c.n DESC OFFSET 40 LIMIT 20", "ordered"],
  ["offsetlimittwo", "SELECT c.id FROM c ORDER BY c.g DESC, c.id ASC OFFSET 7 LIMIT 6", "ordered"],
  ["offsetlimitplain", "SELECT VALUE c.id FROM c OFFSET 7 LIMIT 4", "subset"],
  ["distinct", "SELECT DISTINCT VALUE c.g FROM c", "sorted"],
  ["distinctobjects", "SELECT DISTINCT c.g, c.h FROM c", "sorted"],
  ["distinctordered", "SELECT DISTINCT VALUE c.g FROM c ORDER BY c.g", "ordered"],
  ["distinctordereddesc", "SELECT DISTINCT VALUE c.h FROM c ORDER BY c.h DESC", "ordered"],
  ["distinctorderedobjects", "SELECT DISTINCT c.g FROM c ORDER BY c.g DESC", "ordered"],
  ["count", "SELECT VALUE COUNT(1) FROM c", "ordered"],
  ["countfield", "SELECT VALUE COUNT(c.h) FROM c", "ordered"],
  ["sum", "SELECT VALUE SUM(c.n) FROM c", "ordered"],
  ["avg", "SELECT VALUE AVG(c.n) FROM c", "ordered"],
  ["min", "SELECT VALUE MIN(c.n) FROM c", "ordered"],
  ["maxstring", "SELECT VALUE MAX(c.s) FROM c", "ordered"],
  ["countnone", "SELECT VALUE COUNT(1) FROM c WHERE c.n < 0", "ordered"],
  ["countwhere", "SELECT VALUE COUNT(1) FROM c WHERE c.g = 2", "ordered"],
  ["nvcount", "SELECT COUNT(1) AS n FROM c", "ordered"],
  ["nvcountnoalias", "SELECT COUNT(1) FROM c", "ordered"],
  ["nvseveral", "SELECT COUNT(1) AS n, SUM(c.n) AS s, MIN(c.n) AS lo, MAX(c.s) AS hi, AVG(c.n) AS a FROM c", "ordered"],
  ["nvnone", "SELECT COUNT(1) AS n, SUM(c.n) AS s, MIN(c.n) AS lo, AVG(c.n) AS a FROM c WHERE c.n < 0", "ordered"],
  ["groupby", "SELECT c.g, COUNT(1) AS k FROM c GROUP BY c.g", "sorted"],
  ["groupbytwo", "SELECT c.g, c.h, COUNT(1) AS k, SUM(c.n) AS s, MIN(c.n) AS lo, MAX(c.s) AS hi, AVG(c.n) AS a FROM c GROUP BY c.g, c.h", "sorted"],
  ["groupbykeyonly", "SELECT c.h FROM c GROUP BY c.h", "sorted"],
  ["groupbyvalue", "SELECT VALUE c.g FROM c GROUP BY c.g", "sorted"],
  ["groupbyvalueagg", "SELECT VALUE COUNT(1) FROM c GROUP BY c.h", "sorted"],
  ["groupbyvaluemax", "SELECT VALUE MAX(c.n) FROM c GROUP BY c.g", "sorted"],
  ["groupbywhere", "SELECT c.h AS hh, AVG(c.n) AS a FROM c WHERE c.n > 20 GROUP BY c.h", "sorted"],
  ["groupbyconst", "SELECT c.g, 'k' AS lit, UPPER(c.h) AS u, COUNT(1) AS k FROM c GROUP BY c.g, c.h", "sorted"],
  ["groupbyvalueconst", "SELECT VALUE UPPER(c.h) FROM c GROUP BY c.h", "sorted"],
  ["groupbydistinct", "SELECT DISTINCT VALUE COUNT(1) FROM c GROUP BY c.h", "sorted"],
  ["groupbytop", "SELECT TOP 3 c.g, COUNT(1) AS k FROM c GROUP BY c.g", "count"],
  // shapes whose result the pipeline cannot merge across ranges
  ["aggobject", "SELECT VALUE {n: COUNT(1), s: SUM(c.n)} FROM c", "ordered"],
  ["aggobjectnonvalue", "SELECT {n: COUNT(1)} AS o FROM c", "ordered"],
  ["aggfunction", "SELECT c.g, ROUND(AVG(c.n)) AS a FROM c GROUP BY c.g", "sorted"],
  ["aggobjectgroupby", "SELECT VALUE {g: c.g, k: COUNT(1)} FROM c GROUP BY c.g", "sorted"],
];

function show(name, how, rows) {
  if (how === "count") return `COUNT ${rows.length}`;
  if (how === "subset") {
    const got = rows.map((r) => (typeof r === "string" ? r : r.id));
    const ok = new Set(got).size === got.length && got.every((id) => ids.has(id));
    return `SUBSET ${got.length} ${ok ? "ok" : "BAD " + JSON.stringify(got)}`;
  }
  // (documents print without their system properties, which name the
  // range and time they were written)
  const strip = (r) => {
    if (r === null || typeof r !== "object" || Array.isArray(r)) return r;
    const o = {};
    for (const k of Object.keys(r).sort()) if (!k.startsWith("_")) o[k] = r[k];
    return o;
  };
  const out = rows.map((r) => JSON.stringify(strip(r)));
  if (how === "sorted") out.sort();
  return out.join(" ");
}

for (const [name, query, how] of queries) {
  const options = { maxItemCount: pageSize };
  try {
    await mark(`${name}/next`);
    const it = container.items.query(query, options);
    const rows = [];
    for (let i = 0; it.hasMoreResults(); i++) {
      if (i === 200) throw new Error(`${name}: the query does not end`);
      const res = await it.fetchNext();
      rows.push(...(res.resources ?? []));
    }
    console.log(`NEXT ${name} ${show(name, how, rows)}`);
    await mark(`${name}/all`);
    const { resources } = await container.items.query(query, options).fetchAll();
    console.log(`ALL ${name} ${show(name, how, resources)}`);
  } catch (err) {
    console.log(`ERR ${name} ${err.code} ${String(err.message).split("\n")[0].slice(0, 80)}`);
  }
}
await database.delete();
