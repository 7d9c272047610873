// A minimal Cosmos DB REST client for the explorer: master-key signatures
// (reference §2: HMAC-SHA256 of verb, resource type, resource link and
// date), JSON bodies, and service errors as ServiceError.

import { sign } from "./hmac.js";

/**
 * ServiceError is a refused request: HTTP status, code, message and the
 * x-ms-substatus (0 when absent), which tells apart refusals of one status
 * (e.g. a stored procedure's 400 carrying the 409 its script met).
 */
export class ServiceError extends Error {
  constructor(status, code, message, activityId, substatus = 0) {
    super(message);
    this.status = status;
    this.code = code;
    this.activityId = activityId || "";
    this.substatus = substatus;
  }
  toString() {
    const what = this.status ? `${this.status} ${this.code}` : this.code;
    return `${what}${this.substatus ? ` (substatus ${this.substatus})` : ""}: ${this.message}`;
  }
}

/** decodeKey turns a base64 key into bytes, or throws a ServiceError. */
export function decodeKey(key) {
  let bin;
  try {
    bin = atob(key.trim());
  } catch {
    throw new ServiceError(0, "InvalidKey", "The key is not valid base64.");
  }
  if (bin.length === 0) throw new ServiceError(0, "InvalidKey", "The key is empty.");
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

const toBase64 = (bytes) => btoa(String.fromCharCode(...bytes));

/**
 * resourceTypeAndLink derives the signed resource type and link of a path
 * as the service does: decoded segments; an odd count is a feed (type =
 * last segment, link = the others), an even count a resource (type =
 * second to last, link = all).
 */
export function resourceTypeAndLink(path) {
  const segs = path.replace(/^\/+|\/+$/g, "").split("/").filter((s) => s !== "").map(decodeURIComponent);
  if (segs.length === 0) return ["", ""];
  if (segs.length % 2 === 1) return [segs[segs.length - 1], segs.slice(0, -1).join("/")];
  return [segs[segs.length - 2], segs.join("/")];
}

/** path joins encoded segments: path("dbs", id, "colls") -> "/dbs/<id>/colls". */
export const path = (...segs) => "/" + segs.map(encodeURIComponent).join("/");

/** headerJSON is JSON with non-ASCII characters escaped (header values are Latin-1). */
export const headerJSON = (v) => JSON.stringify(v).replace(/[\u007f-\uffff]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));

/**
 * partitionKeyOf returns the partition key values of item for the
 * container's partitionKey definition ({} stands for an undefined value).
 */
export function partitionKeyOf(container, item) {
  const paths = container?.partitionKey?.paths || [];
  return paths.map((p) => {
    let v = item;
    for (const seg of p.split("/").slice(1)) {
      const name = seg.replace(/^"(.*)"$/, "$1");
      if (v === null || typeof v !== "object" || !(name in v)) return {};
      v = v[name];
    }
    return v === undefined || (v !== null && typeof v === "object") ? {} : v;
  });
}

/** Client signs and sends requests with a master key. */
export class Client {
  /** @param {string} key the base64 master key */
  constructor(key) {
    this.key = decodeKey(key);
  }

  /**
   * request sends a signed request to path (encoded) and returns
   * {status, headers, data, charge}; a status other than 2xx or 304
   * throws a ServiceError carrying the service's code and message.
   */
  async request(method, path, { body, headers = {} } = {}) {
    const date = new Date().toUTCString();
    const [type, link] = resourceTypeAndLink(path);
    const payload = `${method.toLowerCase()}\n${type.toLowerCase()}\n${link}\n${date.toLowerCase()}\n\n`;
    const sig = toBase64(await sign(this.key, payload));
    const h = new Headers(headers);
    h.set("x-ms-date", date);
    h.set("x-ms-version", "2020-07-15");
    h.set("Authorization", encodeURIComponent(`type=master&ver=1.0&sig=${sig}`));
    h.set("Accept", "application/json");
    if (body !== undefined && !h.has("Content-Type")) h.set("Content-Type", "application/json");
    let resp;
    try {
      resp = await fetch(path, { method, headers: h, body: typeof body === "string" || body === undefined ? body : JSON.stringify(body), cache: "no-store" });
    } catch (e) {
      throw new ServiceError(0, "NetworkError", `The request did not reach the emulator (${e.message}).`);
    }
    const text = await resp.text();
    let data = null;
    if (text) {
      try {
        data = JSON.parse(text);
      } catch {
        data = text;
      }
    }
    if (!resp.ok && resp.status !== 304) {
      const obj = data && typeof data === "object" ? data : {};
      throw new ServiceError(resp.status, obj.code || resp.statusText || "Error", obj.message || (typeof data === "string" ? data : "") || "(no message)", resp.headers.get("x-ms-activity-id"), Number(resp.headers.get("x-ms-substatus") || 0));
    }
    return { status: resp.status, headers: resp.headers, data, charge: Number(resp.headers.get("x-ms-request-charge") || 0) };
  }
}
