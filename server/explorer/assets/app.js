// The data explorer's page logic: connection, databases and containers,
// items, queries, the change feed, partition key ranges, server-side
// scripts and the TTL view. Every action runs through run(), which shows a
// refused request's status and message in the alert region: nothing fails
// silently. The URL's hash names the open database, container, tab and
// script (see routeHash), so reload, copy-paste and back/forward restore
// the view.

import { Client, ServiceError, path, headerJSON, partitionKeyOf } from "./cosmos.js";

// The public key of every Cosmos DB emulator (Microsoft's documentation
// prints it); offered as a convenience when the server does not hand the
// page its key.
const WELL_KNOWN_KEY = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";
const KEY_STORAGE = "cosmos-explorer-key";

const $ = (id) => document.getElementById(id);

const state = {
  client: null,
  dbs: [], // {db, colls: [container]}
  offers: new Map(), // resource _rid -> offer
  db: null, // selected database resource
  coll: null, // selected container resource
  ranges: [], // the selected container's live partition key ranges, by minInclusive
  items: { conts: [""], page: 0 },
  editing: null, // {id, pk, etag} of the item in the editor; null: a new item
  query: { text: "", range: 0, cont: "", page: 0, charge: 0, count: 0 },
  feed: { etag: "", page: 0 },
  tab: "items", // the selected container tab (a key of TABS)
  scripts: { sprocs: [], triggers: [], udfs: [] }, // the selected container's scripts
  script: null, // {kind, data} of the open script; data null: a new one
  conn: "", // "connected" or "error": what the header says
};

// The container tabs, by the name the URL uses.
const TABS = { items: "tab-items", query: "tab-query", feed: "tab-feed", scripts: "tab-scripts", ranges: "tab-ranges", settings: "tab-settings" };

// The script kinds: path segment -> feed member, URL parameter, label.
const KINDS = {
  sprocs: { feed: "StoredProcedures", param: "sproc", label: "Stored procedure" },
  triggers: { feed: "Triggers", param: "trigger", label: "Trigger" },
  udfs: { feed: "UserDefinedFunctions", param: "udf", label: "User-defined function" },
};

// ---- feedback

let pending = 0;
document.body.dataset.pending = "0";

function setPending(delta) {
  pending += delta;
  document.body.dataset.pending = String(pending);
  if (pending > 0) document.body.setAttribute("aria-busy", "true");
  else document.body.removeAttribute("aria-busy");
}

/** showError puts a failure in the alert region (status, code, message). */
function showError(e) {
  const text = e instanceof ServiceError ? e.toString() : String(e?.message || e);
  $("error-text").textContent = text;
  $("error").hidden = false;
}

function clearError() {
  $("error").hidden = true;
  $("error-text").textContent = "";
}

/** run performs one user action: it clears the last error and shows the new one. */
async function run(action) {
  clearError();
  setPending(1);
  try {
    return await action();
  } catch (e) {
    showError(e);
    return undefined;
  } finally {
    setPending(-1);
  }
}

window.addEventListener("unhandledrejection", (ev) => showError(ev.reason));
window.addEventListener("error", (ev) => showError(ev.error || ev.message));

/** el builds an element: el("td", {text: "x", class: "c"}, child...). */
function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  e.append(...children);
  return e;
}

/** confirmDelete asks in a modal dialog; resolves true when confirmed. */
function confirmDelete(text) {
  const dlg = $("confirm");
  $("confirm-text").textContent = text;
  dlg.returnValue = "";
  dlg.showModal();
  return new Promise((resolve) => dlg.addEventListener("close", () => resolve(dlg.returnValue === "ok"), { once: true }));
}

const fmtCharge = (c) => `${Number(c).toFixed(2)} RU`;
const fmtTs = (ts) => (typeof ts === "number" ? new Date(ts * 1000).toISOString().replace(".000Z", "Z") : "–");

// ---- connection state (the header's status line)

const endpoint = () => location.origin + "/";

/** setConn shows the connection state in the header: "connected" or "error". */
function setConn(kind, text) {
  state.conn = kind;
  $("key-status").textContent = text;
  $("key-status").dataset.state = kind;
  // the welcome view asks for the key only while there is no connection
  $("welcome-text").textContent = kind === "connected"
    ? "Pick a database or a container in the list, or create a database."
    : "Connect with the account key, then pick a database or a container in the list.";
}

/**
 * noteConnError turns a failure that says the emulator cannot be used
 * (no answer, a refused or invalid key) into the header's state; other
 * refusals leave it connected.
 */
function noteConnError(e) {
  if (!(e instanceof ServiceError)) return;
  if (e.code === "NetworkError") setConn("error", `Not connected: ${endpoint()} does not answer. ${e.message}`);
  else if (e.status === 401 || e.status === 0) setConn("error", `Not connected to ${endpoint()}: ${e}`);
}

// ---- requests

/** req sends a signed request and keeps the header's connection state current. */
async function req(method, p, opts) {
  try {
    const r = await state.client.request(method, p, opts);
    if (state.conn !== "connected") setConn("connected", `Connected to ${endpoint()}.`);
    return r;
  } catch (e) {
    noteConnError(e);
    throw e;
  }
}
const docsPath = () => path("dbs", state.db.id, "colls", state.coll.id, "docs");
const itemPath = (id) => path("dbs", state.db.id, "colls", state.coll.id, "docs", id);

/** readAll reads a whole feed (/dbs, .../colls, /offers), following continuations. */
async function readAll(p, field) {
  const out = [];
  let cont = "";
  do {
    const r = await req("GET", p, { headers: cont ? { "x-ms-continuation": cont } : {} });
    out.push(...(r.data?.[field] || []));
    cont = r.headers.get("x-ms-continuation") || "";
  } while (cont);
  return out;
}

/**
 * query runs one page of a SQL query on one partition key range of the
 * selected container (rangeId), as an SDK's pipeline sends it: a range
 * answers any query whole (ORDER BY, TOP, aggregates) for the items it
 * holds, where the gateway refuses those across ranges.
 */
function query(text, rangeId, { pageSize, cont } = {}) {
  const headers = {
    "Content-Type": "application/query+json",
    "x-ms-documentdb-isquery": "True",
    "x-ms-documentdb-query-enablecrosspartition": "True",
    "x-ms-documentdb-partitionkeyrangeid": rangeId,
  };
  if (pageSize) headers["x-ms-max-item-count"] = String(pageSize);
  if (cont) headers["x-ms-continuation"] = cont;
  return req("POST", docsPath(), { body: { query: text, parameters: [] }, headers });
}

// ---- connection

async function connect(key, how) {
  try {
    const client = new Client(key);
    await client.request("GET", "/dbs"); // a wrong key is a 401 here
    state.client = client;
  } catch (e) {
    noteConnError(e);
    throw e;
  }
  sessionStorage.setItem(KEY_STORAGE, key);
  setConn("connected", `Connected to ${endpoint()}${how === "server" ? " with the key the emulator gave this page" : ""}.`);
  for (const id of ["refresh-tree", "advance-clock", "sweep", "refresh-stats"]) $(id).disabled = false;
  await loadTree();
  await loadStats();
  lastRoute = null; // the URL names what to open now that the tree is known
  await applyRoute();
}

async function init() {
  bindEvents();
  const settings = await run(async () => {
    let r;
    try {
      r = await fetch("settings.json", { cache: "no-store" });
    } catch (e) {
      const err = new ServiceError(0, "NetworkError", `The request did not reach the emulator (${e.message}).`);
      noteConnError(err);
      throw err;
    }
    if (!r.ok) throw new ServiceError(r.status, "Settings", `GET settings.json answered ${r.status}.`);
    return r.json();
  });
  if (settings?.keyProvided) {
    $("key").value = settings.key;
    await run(() => connect(settings.key, "server"));
    return;
  }
  $("key-status").textContent = settings?.reason || "Enter the account key.";
  const saved = sessionStorage.getItem(KEY_STORAGE);
  if (saved) {
    $("key").value = saved;
    await run(() => connect(saved, "saved"));
  }
}

// ---- databases and containers

async function loadTree() {
  const dbs = await readAll("/dbs", "Databases");
  state.dbs = [];
  for (const db of dbs) {
    state.dbs.push({ db, colls: await readAll(path("dbs", db.id, "colls"), "DocumentCollections") });
  }
  state.offers = new Map((await readAll("/offers", "Offers")).map((o) => [o.offerResourceId, o]));
  renderTree();
}

function renderTree() {
  const tree = $("tree");
  tree.replaceChildren();
  if (state.dbs.length === 0) tree.append(el("li", { text: "No databases yet." }));
  for (const { db, colls } of state.dbs) {
    const sub = el("ul");
    for (const c of colls) {
      const current = state.coll?._rid === c._rid;
      sub.append(el("li", {}, el("button", { type: "button", class: "coll", "data-db": db.id, "data-coll": c.id, "aria-current": current ? "true" : "false", onclick: () => run(() => selectColl(db, c)) }, c.id)));
    }
    const current = !state.coll && state.db?._rid === db._rid;
    tree.append(el("li", {}, el("button", { type: "button", class: "db", "data-db": db.id, "aria-current": current ? "true" : "false", onclick: () => selectDb(db) }, db.id), sub));
  }
}

function show(view) {
  for (const id of ["welcome", "db-view", "coll-view"]) $(id).hidden = id !== view;
}

// ---- the URL: deep links, reload, back and forward

let restoring = false; // applyRoute is at work: record the view without a new history entry
let lastRoute = null; // the hash the view shows

/**
 * routeHash is the hash naming the open view:
 * #db=<id>&coll=<id>&tab=<tab>[&sproc=<id>|&trigger=<id>|&udf=<id>]
 * (URLSearchParams syntax; "" for the welcome view).
 */
function routeHash() {
  const p = new URLSearchParams();
  if (state.db) p.set("db", state.db.id);
  if (state.db && state.coll) {
    p.set("coll", state.coll.id);
    p.set("tab", state.tab);
    if (state.tab === "scripts" && state.script?.data) p.set(KINDS[state.script.kind].param, state.script.data.id);
  }
  const s = p.toString();
  return s ? "#" + s : "";
}

/** updateRoute records the open view in the URL: a new history entry, or in place while restoring. */
function updateRoute() {
  const h = routeHash();
  lastRoute = h;
  if (h === location.hash) return;
  const url = h || location.pathname + location.search;
  if (restoring) history.replaceState(null, "", url);
  else history.pushState(null, "", url);
}

/**
 * applyRoute opens the view the URL's hash names (after a reload, a pasted
 * link, back or forward). A database or container the emulator does not
 * have (any more) is an error naming it.
 */
async function applyRoute() {
  if (!state.client || location.hash === lastRoute) return;
  lastRoute = location.hash;
  const p = new URLSearchParams(location.hash.slice(1));
  restoring = true;
  try {
    const dbId = p.get("db");
    const collId = p.get("coll");
    if (dbId === null) {
      state.db = state.coll = null;
      renderTree();
      show("welcome");
      return;
    }
    const find = () => state.dbs.find((d) => d.db.id === dbId);
    let entry = find();
    if (!entry || (collId !== null && !entry.colls.some((c) => c.id === collId))) {
      await loadTree(); // created since the tree was read
      entry = find();
    }
    if (!entry) throw new ServiceError(404, "NotFound", `The link names database ${dbId}, which does not exist.`);
    if (collId === null) {
      selectDb(entry.db);
      return;
    }
    const coll = entry.colls.find((c) => c.id === collId);
    if (!coll) throw new ServiceError(404, "NotFound", `The link names container ${collId} of database ${dbId}, which does not exist.`);
    const tab = TABS[p.get("tab")] ? p.get("tab") : "items";
    if (state.coll?._rid !== coll._rid) await selectColl(entry.db, coll, tab);
    else if (state.tab !== tab) await selectTab(tab);
    const kind = Object.keys(KINDS).find((k) => p.has(KINDS[k].param));
    if (tab === "scripts" && kind) await openScript(kind, p.get(KINDS[kind].param));
    else closeScript();
    updateRoute();
  } finally {
    restoring = false;
  }
}

/** throughputText describes the offer of a database or container. */
function throughputText(rid) {
  const o = state.offers.get(rid);
  if (!o) return null;
  const auto = o.content?.offerAutopilotSettings?.maxThroughput;
  return auto ? `autoscale, up to ${auto} RU/s` : `${o.content?.offerThroughput} RU/s (manual)`;
}

function fillSettings(dl, rows) {
  dl.replaceChildren();
  for (const [k, v] of rows) dl.append(el("dt", { text: k }), el("dd", { text: v }));
}

function selectDb(db) {
  state.db = db;
  state.coll = null;
  const entry = state.dbs.find((d) => d.db._rid === db._rid);
  $("db-title").textContent = `Database ${db.id}`;
  fillSettings($("db-settings"), [
    ["id", db.id],
    ["_rid", db._rid],
    ["Shared throughput", throughputText(db._rid) || "none (each container has its own)"],
    ["Containers", String(entry?.colls.length ?? 0)],
  ]);
  renderTree();
  show("db-view");
  updateRoute();
  $("db-title").focus();
}

async function createDatabase(form) {
  const id = form.dbId.value.trim();
  const headers = form.throughput.value ? { "x-ms-offer-throughput": form.throughput.value } : {};
  const r = await req("POST", "/dbs", { body: { id }, headers });
  form.reset();
  await loadTree();
  selectDb(r.data);
}

async function deleteDatabase() {
  const db = state.db;
  if (!(await confirmDelete(`Delete database ${db.id} and all its containers?`))) return;
  await req("DELETE", path("dbs", db.id));
  state.db = state.coll = null;
  show("welcome");
  updateRoute();
  await loadTree();
  await loadStats();
}

function ttlValue(mode, seconds) {
  if (mode === "on") return -1;
  if (mode === "seconds") return Number(seconds);
  return undefined;
}

async function createContainer(form) {
  const paths = form.pk.value.split(",").map((s) => s.trim()).filter(Boolean);
  const body = { id: form.collId.value.trim(), partitionKey: { paths, kind: paths.length > 1 ? "MultiHash" : "Hash", version: 2 } };
  const ttl = ttlValue(form["ttl-mode"].value, form.ttl.value);
  if (ttl !== undefined) body.defaultTtl = ttl;
  const headers = form.throughput.value ? { "x-ms-offer-throughput": form.throughput.value } : {};
  const r = await req("POST", path("dbs", state.db.id, "colls"), { body, headers });
  form.reset();
  await loadTree();
  await selectColl(state.db, r.data);
  await loadStats();
}

/** selectColl opens a container on tab (by default the tab open before). */
async function selectColl(db, coll, tab = state.tab) {
  state.db = db;
  state.coll = coll;
  state.tab = tab;
  state.script = null;
  state.scripts = { sprocs: [], triggers: [], udfs: [] };
  state.items = { conts: [""], page: 0 };
  state.query = { text: "", range: 0, cont: "", page: 0, charge: 0, count: 0 };
  state.feed = { etag: "", page: 0 };
  state.ranges = [];
  closeEditor();
  $("coll-title").textContent = `${db.id} / ${coll.id}`;
  $("query-results").textContent = $("query-summary").textContent = "";
  $("feed-results").textContent = $("feed-summary").textContent = "";
  $("query-next").disabled = $("feed-next").disabled = true;
  closeScript();
  renderCollSettings();
  renderTree();
  activateTab(tab);
  show("coll-view");
  updateRoute();
  $("coll-title").focus();
  await loadRanges();
  await loadItems(0);
  if (tab === "scripts") await loadScripts();
}

// ---- partition key ranges

/** loadRanges reads the selected container's live ranges (GET .../pkranges) and shows them. */
async function loadRanges() {
  const rs = await readAll(path("dbs", state.db.id, "colls", state.coll.id, "pkranges"), "PartitionKeyRanges");
  // EPKs are upper-case hex strings: their string order is the EPK order
  rs.sort((a, b) => (a.minInclusive < b.minInclusive ? -1 : a.minInclusive > b.minInclusive ? 1 : 0));
  state.ranges = rs;
  const tbody = $("ranges");
  tbody.replaceChildren();
  const epk = (v) => (v === "" ? '""' : v);
  for (const r of rs) {
    tbody.append(el("tr", { "data-id": r.id },
      el("th", { scope: "row", text: r.id }),
      el("td", { class: "min", text: epk(r.minInclusive) }),
      el("td", { class: "max", text: epk(r.maxExclusive) }),
      el("td", { class: "parents", text: (r.parents || []).join(", ") || "none" })));
  }
  $("ranges-caption").textContent = `${rs.length} ${rs.length === 1 ? "range" : "ranges"}`;
  $("ranges-table").dataset.count = String(rs.length);
}

/**
 * onRanges runs fn (which reads state.ranges); when a range it names is
 * gone (410: split since the ranges were read) it reads the ranges again
 * and runs fn once more, as the SDKs do.
 */
async function onRanges(fn) {
  try {
    return await fn();
  } catch (e) {
    if (!(e instanceof ServiceError) || e.status !== 410) throw e;
    await loadRanges();
    return fn();
  }
}

function ttlText(t) {
  if (t === undefined || t === null) return "off";
  if (t === -1) return "on, no default (-1): items expire only with their own ttl";
  return `${t} seconds after the last write`;
}

function renderCollSettings() {
  const c = state.coll;
  const pk = c.partitionKey || {};
  const tp = throughputText(c._rid) || (throughputText(state.db._rid) ? `shared with the database: ${throughputText(state.db._rid)}` : "none");
  fillSettings($("coll-settings"), [
    ["id", c.id],
    ["_rid", c._rid],
    ["Partition key", `${(pk.paths || []).join(", ")} (${pk.kind || "Hash"}, version ${pk.version || 1})`],
    ["Time to live (defaultTtl)", ttlText(c.defaultTtl)],
    ["Throughput", tp],
    ["Unique keys", (c.uniqueKeyPolicy?.uniqueKeys || []).map((u) => u.paths.join("+")).join(", ") || "none"],
    ["Modified", fmtTs(c._ts)],
  ]);
  $("coll-indexing").textContent = JSON.stringify(c.indexingPolicy ?? {}, null, 2);
  const mode = c.defaultTtl === undefined || c.defaultTtl === null ? "off" : c.defaultTtl === -1 ? "on" : "seconds";
  $("ttl-select").value = mode;
  $("ttl-seconds").value = mode === "seconds" ? c.defaultTtl : "";
}

async function changeTtl() {
  const body = Object.fromEntries(Object.entries(state.coll).filter(([k]) => !k.startsWith("_")));
  const ttl = ttlValue($("ttl-select").value, $("ttl-seconds").value);
  if (ttl === undefined) delete body.defaultTtl;
  else body.defaultTtl = ttl;
  const r = await req("PUT", path("dbs", state.db.id, "colls", state.coll.id), { body });
  state.coll = r.data;
  renderCollSettings();
  await loadTree();
  await loadItems(state.items.page);
  await loadStats();
}

async function deleteContainer() {
  const { db, coll } = state;
  if (!(await confirmDelete(`Delete container ${coll.id} of ${db.id} and all its items?`))) return;
  await req("DELETE", path("dbs", db.id, "colls", coll.id));
  await loadTree();
  selectDb(state.dbs.find((d) => d.db._rid === db._rid)?.db || db);
  await loadStats();
}

// ---- items

async function loadItems(page) {
  const size = $("items-page-size").value;
  const cont = state.items.conts[page] || "";
  const headers = { "x-ms-max-item-count": size };
  if (cont) headers["x-ms-continuation"] = cont;
  const r = await req("GET", docsPath(), { headers });
  const next = r.headers.get("x-ms-continuation") || "";
  state.items.page = page;
  state.items.conts.length = page + 1;
  if (next) state.items.conts.push(next);
  const docs = r.data?.Documents || [];
  const tbody = $("items");
  tbody.replaceChildren();
  for (const d of docs) {
    const open = el("button", { type: "button", class: "link", "aria-label": `Open item ${d.id}`, onclick: () => run(() => openItem(d)) }, d.id);
    tbody.append(el("tr", { "data-id": d.id }, el("td", {}, open), el("td", { text: headerJSON(partitionKeyOf(state.coll, d)) }), el("td", { text: fmtTs(d._ts) }), el("td", { text: d.ttl === undefined ? "" : String(d.ttl) })));
  }
  $("items-caption").textContent = `Items, page ${page + 1} (${docs.length} on this page${next ? ", more on the next" : ""})`;
  $("items-prev").disabled = page === 0;
  $("items-next").disabled = !next;
  // one count per range, summed: the gateway refuses an aggregate across ranges
  const n = await onRanges(async () => {
    let sum = 0;
    for (const rg of state.ranges) sum += (await query("SELECT VALUE COUNT(1) FROM c", rg.id)).data?.Documents?.[0] ?? 0;
    return sum;
  });
  $("item-count").textContent = `${n} ${n === 1 ? "item" : "items"} in the container`;
  $("item-count").dataset.count = String(n);
}

/** editorMessage shows a note under the editor; kind "error" marks the JSON invalid. */
function editorMessage(text, kind = "note") {
  const ed = $("editor");
  if (kind === "error") ed.setAttribute("aria-invalid", "true");
  else ed.removeAttribute("aria-invalid");
  $("editor-msg").textContent = text;
  $("editor-msg").dataset.kind = kind;
}

function openEditor(label, doc) {
  $("editor-label").textContent = label;
  $("editor").value = JSON.stringify(doc, null, 2);
  editorMessage("");
  $("delete-item").hidden = state.editing === null;
  $("editor-form").hidden = false;
  $("editor").focus();
}

function closeEditor() {
  state.editing = null;
  $("editor-form").hidden = true;
}

async function openItem(d) {
  const pk = partitionKeyOf(state.coll, d);
  const r = await req("GET", itemPath(d.id), { headers: { "x-ms-documentdb-partitionkey": headerJSON(pk) } });
  state.editing = { id: d.id, pk, etag: r.data._etag };
  openEditor(`Item ${d.id} (${fmtCharge(r.charge)} to read)`, r.data);
}

function newItem() {
  state.editing = null;
  const doc = { id: crypto.randomUUID?.() ?? String(Date.now()) };
  for (const p of state.coll.partitionKey?.paths || []) {
    const segs = p.split("/").slice(1);
    if (segs.length === 1 && segs[0] !== "id") doc[segs[0]] = "";
  }
  openEditor("New item", doc);
}

async function saveItem() {
  const ed = $("editor");
  let doc;
  try {
    doc = JSON.parse(ed.value);
  } catch (e) {
    editorMessage(`Not valid JSON: ${e.message}. Nothing was sent.`, "error");
    ed.focus();
    return;
  }
  if (doc === null || typeof doc !== "object" || Array.isArray(doc)) {
    editorMessage("An item must be a JSON object. Nothing was sent.", "error");
    ed.focus();
    return;
  }
  editorMessage("");
  let r;
  if (state.editing === null) {
    r = await req("POST", docsPath(), { body: doc, headers: { "x-ms-documentdb-partitionkey": headerJSON(partitionKeyOf(state.coll, doc)) } });
  } else {
    const headers = { "x-ms-documentdb-partitionkey": headerJSON(state.editing.pk) };
    if (state.editing.etag) headers["If-Match"] = state.editing.etag;
    r = await req("PUT", itemPath(state.editing.id), { body: doc, headers });
  }
  const saved = r.data;
  state.editing = { id: saved.id, pk: partitionKeyOf(state.coll, saved), etag: saved._etag };
  openEditor(`Item ${saved.id} (saved, ${fmtCharge(r.charge)})`, saved);
  editorMessage(`Saved (${r.status === 201 ? "created" : "replaced"}).`);
  await loadItems(state.items.page);
  await loadStats();
}

async function deleteItem() {
  const { id, pk } = state.editing;
  if (!(await confirmDelete(`Delete item ${id}?`))) return;
  await req("DELETE", itemPath(id), { headers: { "x-ms-documentdb-partitionkey": headerJSON(pk) } });
  closeEditor();
  await loadItems(state.items.page);
  await loadStats();
}

// ---- query

/**
 * runQuery shows the next page of the query. A container with several
 * ranges is queried range after range (an empty last page of a range is
 * skipped), so ORDER BY, TOP and aggregates apply within each range; a
 * range split since the query started answers 410, shown, and the ranges
 * are read again for the next run.
 */
async function runQuery(first) {
  if (first) {
    state.query = { text: $("query").value, range: 0, cont: "", page: 0, charge: 0, count: 0 };
    $("query-results").textContent = "";
    $("query-summary").textContent = "";
  }
  const q = state.query;
  const n = state.ranges.length;
  let r, docs, rangeId;
  let charge = 0;
  try {
    do {
      rangeId = state.ranges[q.range].id;
      r = await query(q.text, rangeId, { pageSize: $("query-page-size").value, cont: q.cont });
      docs = r.data?.Documents || [];
      charge += r.charge;
      q.cont = r.headers.get("x-ms-continuation") || "";
      if (!q.cont) q.range += 1;
    } while (docs.length === 0 && !q.cont && q.range < n);
  } catch (e) {
    $("query-next").disabled = true;
    if (e instanceof ServiceError && e.status === 410) await loadRanges();
    throw e;
  }
  const more = q.cont !== "" || q.range < n;
  q.page += 1;
  q.charge += charge;
  q.count += docs.length;
  const where = n > 1 ? ` (range ${rangeId}, ${state.ranges.findIndex((x) => x.id === rangeId) + 1} of ${n}; each range answers in turn)` : "";
  $("query-results").textContent = JSON.stringify(docs, null, 2);
  $("query-summary").textContent = `Page ${q.page}${where}: ${docs.length} ${docs.length === 1 ? "result" : "results"}, request charge ${fmtCharge(charge)} (${q.count} results and ${fmtCharge(q.charge)} so far). ${more ? "More results on the next page." : "No more results."}`;
  $("query-summary").dataset.results = String(docs.length);
  $("query-summary").dataset.range = rangeId;
  $("query-next").disabled = !more;
}

// ---- change feed

async function readFeed(first) {
  if (first) state.feed = { etag: "", page: 0 };
  const f = state.feed;
  const headers = { "A-IM": "Incremental Feed", "x-ms-max-item-count": $("feed-page-size").value };
  if (f.etag) headers["If-None-Match"] = f.etag;
  const r = await req("GET", docsPath(), { headers });
  f.etag = r.headers.get("etag") || f.etag;
  $("feed-next").disabled = false;
  if (r.status === 304) {
    $("feed-summary").textContent = `No more changes: the feed is caught up (continuation ${f.etag}). Next page reads what changes from now on.`;
    $("feed-results").textContent = "";
    $("feed-summary").dataset.changes = "0";
    return;
  }
  const docs = r.data?.Documents || [];
  f.page += 1;
  $("feed-summary").textContent = `Page ${f.page}: ${docs.length} ${docs.length === 1 ? "change" : "changes"}, request charge ${fmtCharge(r.charge)} (continuation ${f.etag}).`;
  $("feed-summary").dataset.changes = String(docs.length);
  $("feed-results").textContent = JSON.stringify(docs, null, 2);
}

// ---- time to live: stats, clock, sweeper

async function loadStats() {
  const r = await req("GET", "/_emulator/stats");
  const { containers = [], sweeper, clock } = r.data || {};
  if (clock) {
    const t = $("clock-now");
    t.textContent = fmtTs(clock.now);
    t.dateTime = new Date(clock.now * 1000).toISOString();
    $("clock-offset").textContent = clock.offsetSeconds ? `(moved ${clock.offsetSeconds} s ahead)` : "(not moved)";
  }
  const tbody = $("stats");
  tbody.replaceChildren();
  for (const c of containers) {
    tbody.append(el("tr", { "data-db": c.database, "data-coll": c.container },
      el("th", { scope: "row", text: `${c.database} / ${c.container}` }),
      el("td", { class: "stored", text: String(c.storedRows) }),
      el("td", { class: "live", text: String(c.liveItems) }),
      el("td", { text: String(c.liveBytes) })));
  }
  if (containers.length === 0) tbody.append(el("tr", {}, el("td", { colspan: "4", text: "No containers." })));
  $("sweeper-stats").textContent = sweeper
    ? `${sweeper.sweeps} sweeps, ${sweeper.deleted} rows deleted, ${sweeper.errors} errors${sweeper.lastError ? ` (last: ${sweeper.lastError})` : ""}`
    : "not running";
}

async function advanceClock() {
  const n = Number($("advance-seconds").value);
  await req("POST", "/_emulator/clock", { body: { advanceSeconds: n } });
  await loadStats();
  if (state.coll) await loadItems(0);
}

async function sweep() {
  const r = await req("POST", "/_emulator/ttl/sweep");
  await loadStats();
  $("busy").textContent = `The sweep deleted ${r.data?.deleted ?? 0} rows.`;
}

// ---- server-side scripts: stored procedures, triggers, user-defined functions

const scriptsPath = (kind) => path("dbs", state.db.id, "colls", state.coll.id, kind);
const scriptPath = (kind, id) => path("dbs", state.db.id, "colls", state.coll.id, kind, id);

/** loadScripts reads and lists the selected container's scripts of every kind. */
async function loadScripts() {
  for (const kind of Object.keys(KINDS)) {
    const list = await readAll(scriptsPath(kind), KINDS[kind].feed);
    state.scripts[kind] = list;
    const tbody = $(kind);
    tbody.replaceChildren();
    for (const sc of list) {
      const open = el("button", { type: "button", class: "link", "aria-label": `Open ${KINDS[kind].label.toLowerCase()} ${sc.id}`, onclick: () => run(() => openScript(kind, sc.id)) }, sc.id);
      const cells = [el("th", { scope: "row" }, open)];
      if (kind === "triggers") cells.push(el("td", { class: "type", text: sc.triggerType }), el("td", { class: "op", text: sc.triggerOperation }));
      cells.push(el("td", { text: fmtTs(sc._ts) }));
      tbody.append(el("tr", { "data-id": sc.id }, ...cells));
    }
    if (list.length === 0) tbody.append(el("tr", {}, el("td", { colspan: kind === "triggers" ? "4" : "2", class: "help", text: "None." })));
    $(`${kind}-table`).dataset.count = String(list.length);
  }
}

/** scriptMode switches the script form between viewing (read-only) and editing. */
function scriptMode(editing) {
  const isNew = !state.script?.data;
  $("script-id").readOnly = !isNew;
  $("script-body").readOnly = !editing;
  $("script-trigger-type").disabled = $("script-trigger-op").disabled = !editing;
  $("edit-script").hidden = editing;
  $("save-script").hidden = $("cancel-edit").hidden = !editing;
  $("delete-script").hidden = isNew || editing;
  $("script-form").dataset.mode = editing ? "edit" : "view";
  $("run-form").hidden = isNew || state.script.kind !== "sprocs";
  if (editing) $(isNew ? "script-id" : "script-body").focus();
}

/** showScript shows a script read from the service, read-only. */
function showScript(kind, data) {
  state.script = { kind, data };
  $("script-title").textContent = `${KINDS[kind].label} ${data.id}`;
  $("script-id").value = data.id;
  $("script-body").value = data.body ?? "";
  $("script-trigger-fields").hidden = kind !== "triggers";
  if (kind === "triggers") {
    $("script-trigger-type").value = data.triggerType;
    $("script-trigger-op").value = data.triggerOperation;
  }
  scriptMessage("");
  $("script-form").hidden = false;
  scriptMode(false);
}

function scriptMessage(text, kind = "note") {
  $("script-msg").textContent = text;
  $("script-msg").dataset.kind = kind;
}

function closeScript() {
  state.script = null;
  $("script-form").hidden = $("run-form").hidden = true;
  $("run-summary").textContent = $("run-result").textContent = $("run-log").textContent = "";
}

/** openScript reads one script (GET .../{kind}/{id}) and shows it. */
async function openScript(kind, id) {
  const r = await req("GET", scriptPath(kind, id));
  if (state.script?.data?.id !== id || state.script.kind !== kind) closeScript();
  showScript(kind, r.data);
  updateRoute();
  $("script-title").focus();
}

const TEMPLATES = {
  sprocs: `function run(name) {
    var response = getContext().getResponse();
    console.log("called with " + JSON.stringify(name));
    response.setBody({ hello: name });
}`,
  triggers: `function stamp() {
    var request = getContext().getRequest();
    var item = request.getBody();
    item.stampedAt = new Date().toISOString();
    request.setBody(item);
}`,
  udfs: `function double(x) {
    return x * 2;
}`,
};

function newScript(kind) {
  closeScript();
  state.script = { kind, data: null };
  $("script-title").textContent = `New ${KINDS[kind].label.toLowerCase()}`;
  $("script-id").value = "";
  $("script-body").value = TEMPLATES[kind];
  $("script-trigger-fields").hidden = kind !== "triggers";
  $("script-trigger-type").value = "Pre";
  $("script-trigger-op").value = "All";
  scriptMessage("");
  $("script-form").hidden = false;
  scriptMode(true);
  updateRoute();
}

/** saveScript creates the new script (POST) or replaces the open one (PUT with If-Match). */
async function saveScript() {
  const { kind, data } = state.script;
  const body = { id: $("script-id").value.trim(), body: $("script-body").value };
  if (kind === "triggers") {
    body.triggerType = $("script-trigger-type").value;
    body.triggerOperation = $("script-trigger-op").value;
  }
  const r = data
    ? await req("PUT", scriptPath(kind, data.id), { body, headers: data._etag ? { "If-Match": data._etag } : {} })
    : await req("POST", scriptsPath(kind), { body });
  showScript(kind, r.data);
  scriptMessage(`Saved (${r.status === 201 ? "created" : "replaced"}, ${fmtCharge(r.charge)}).`);
  updateRoute();
  await loadScripts();
}

async function deleteScript() {
  const { kind, data } = state.script;
  if (!(await confirmDelete(`Delete ${KINDS[kind].label.toLowerCase()} ${data.id}?`))) return;
  await req("DELETE", scriptPath(kind, data.id), { headers: { "If-Match": data._etag } });
  closeScript();
  updateRoute();
  await loadScripts();
}

/**
 * partitionKeyValue reads the run form's partition key: JSON, or a string
 * when it is not JSON; an array is the whole (hierarchical) key. Empty:
 * null, no header is sent.
 */
function partitionKeyValue(text) {
  if (text.trim() === "") return null;
  let v;
  try {
    v = JSON.parse(text);
  } catch {
    v = text;
  }
  return Array.isArray(v) ? v : [v];
}

/**
 * runSproc executes the open stored procedure (POST .../sprocs/{id}) with
 * the partition key and the parameters, and shows the response body, the
 * request charge and the script log (x-ms-documentdb-script-log-results,
 * asked for with x-ms-documentdb-script-enable-logging).
 */
async function runSproc() {
  const { data } = state.script;
  const params = $("run-params");
  const text = params.value.trim();
  if (text !== "") {
    try {
      JSON.parse(text);
    } catch (e) {
      params.setAttribute("aria-invalid", "true");
      $("run-msg").textContent = `Not valid JSON: ${e.message}. Nothing was sent.`;
      $("run-msg").dataset.kind = "error";
      params.focus();
      return;
    }
  }
  params.removeAttribute("aria-invalid");
  $("run-msg").textContent = "";
  $("run-summary").textContent = $("run-result").textContent = $("run-log").textContent = "";
  const headers = {};
  const pk = partitionKeyValue($("run-pk").value);
  if (pk) headers["x-ms-documentdb-partitionkey"] = headerJSON(pk);
  const logging = $("run-logging").checked;
  if (logging) headers["x-ms-documentdb-script-enable-logging"] = "true";
  $("run-summary").dataset.state = "running";
  let r;
  try {
    r = await req("POST", scriptPath("sprocs", data.id), { body: text === "" ? undefined : text, headers });
  } catch (e) {
    $("run-summary").textContent = `Failed: ${e}`;
    $("run-summary").dataset.state = "failed";
    throw e;
  }
  const log = r.headers.get("x-ms-documentdb-script-log-results");
  $("run-result").textContent = r.data === null ? "(no body)" : JSON.stringify(r.data, null, 2);
  $("run-log").textContent = !logging ? "(logging off)" : log ? decodeURIComponent(log) : "(nothing logged)";
  $("run-summary").textContent = `${r.status}: ran ${data.id}, request charge ${fmtCharge(r.charge)}.`;
  $("run-summary").dataset.state = "done";
}

// ---- events

/** activateTab shows the container tab name (a key of TABS) and its panel. */
function activateTab(name) {
  for (const t of document.querySelectorAll('[role="tab"]')) {
    const on = t.id === TABS[name];
    t.setAttribute("aria-selected", String(on));
    t.tabIndex = on ? 0 : -1;
    $(t.getAttribute("aria-controls")).hidden = !on;
  }
  state.tab = name;
}

/**
 * selectTab switches to the container tab name, reading the scripts when
 * it is theirs (in run() of its own: a tab switch leaves the alert shown
 * as it is, and a failed read shows there).
 */
async function selectTab(name, focus = false) {
  const was = state.tab;
  activateTab(name);
  if (name !== "scripts") closeScript();
  updateRoute();
  if (focus) $(TABS[name]).focus();
  if (name === "scripts" && was !== "scripts") await run(loadScripts);
}

const tabName = (tab) => Object.keys(TABS).find((k) => TABS[k] === tab.id);

function onSubmit(id, action) {
  $(id).addEventListener("submit", (ev) => {
    ev.preventDefault();
    run(() => action(ev.target));
  });
}

function bindEvents() {
  onSubmit("key-form", (f) => connect(f.key.value, "user"));
  $("well-known").addEventListener("click", () => {
    $("key").value = WELL_KNOWN_KEY;
    run(() => connect(WELL_KNOWN_KEY, "user"));
  });
  $("error-dismiss").addEventListener("click", clearError);
  $("refresh-tree").addEventListener("click", () => run(loadTree));
  onSubmit("new-db-form", createDatabase);
  $("delete-db").addEventListener("click", () => run(deleteDatabase));
  onSubmit("new-coll-form", createContainer);
  $("new-coll-ttl").addEventListener("input", () => ($("new-coll-form")["ttl-mode"].value = "seconds"));

  const tabs = [...document.querySelectorAll('[role="tab"]')];
  for (const t of tabs) {
    t.addEventListener("click", () => selectTab(tabName(t), true));
    t.addEventListener("keydown", (ev) => {
      const i = tabs.indexOf(t);
      const to = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1 }[ev.key];
      if (to === undefined) return;
      ev.preventDefault();
      selectTab(tabName(tabs[(to + tabs.length) % tabs.length]), true);
    });
  }

  $("new-item").addEventListener("click", newItem);
  $("refresh-items").addEventListener("click", () => run(() => loadItems(state.items.page)));
  $("items-page-size").addEventListener("change", () => run(() => ((state.items = { conts: [""], page: 0 }), loadItems(0))));
  $("items-prev").addEventListener("click", () => run(() => loadItems(state.items.page - 1)));
  $("items-next").addEventListener("click", () => run(() => loadItems(state.items.page + 1)));
  onSubmit("editor-form", saveItem);
  $("delete-item").addEventListener("click", () => run(deleteItem));
  $("close-editor").addEventListener("click", closeEditor);

  onSubmit("query-form", () => runQuery(true));
  $("query").addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) {
      ev.preventDefault();
      run(() => runQuery(true));
    }
  });
  $("query-next").addEventListener("click", () => run(() => runQuery(false)));

  $("feed-start").addEventListener("click", () => run(() => readFeed(true)));
  $("feed-next").addEventListener("click", () => run(() => readFeed(false)));

  onSubmit("ttl-form", changeTtl);
  $("refresh-ranges").addEventListener("click", () => run(loadRanges));
  $("delete-coll").addEventListener("click", () => run(deleteContainer));

  onSubmit("clock-form", advanceClock);
  $("sweep").addEventListener("click", () => run(sweep));
  $("refresh-stats").addEventListener("click", () => run(loadStats));

  for (const kind of Object.keys(KINDS)) $(`new-${kind}`).addEventListener("click", () => newScript(kind));
  $("refresh-scripts").addEventListener("click", () => run(loadScripts));
  onSubmit("script-form", saveScript);
  $("edit-script").addEventListener("click", () => scriptMode(true));
  $("cancel-edit").addEventListener("click", () => (state.script?.data ? showScript(state.script.kind, state.script.data) : closeScript()));
  $("delete-script").addEventListener("click", () => run(deleteScript));
  $("close-script").addEventListener("click", () => (closeScript(), updateRoute()));
  onSubmit("run-form", runSproc);

  // back/forward fire popstate, an edited hash both: the second finds the view applied
  const onRoute = () => state.client && location.hash !== lastRoute && run(applyRoute);
  window.addEventListener("popstate", onRoute);
  window.addEventListener("hashchange", onRoute);
}

init();
