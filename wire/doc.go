// Package wire is the REST surface of the emulator: gorilla/mux routes,
// master-key (and emulator-style AAD) authentication, decoding of headers
// and bodies into emulator requests, response headers and feed envelopes,
// and the ONE place where emulator error kinds become HTTP status codes,
// x-ms-substatus values and {"code","message"} bodies (errors.go).
//
// Its files follow the three surfaces it serves, which share the router,
// the middleware (handler.go) and that one error map:
//   - the data plane, the Cosmos REST API under / and /dbs/...: handler.go
//     (routes, authentication), resources.go, items.go, batch.go,
//     changefeed*.go, ranges.go, users.go, scripts.go, addresses.go,
//     ratelimit.go (throttling), and
//     direct.go for the same operations over direct mode (wire/rntbd);
//   - the control plane under /_emulator/ (health, clock, TTL sweep, stats,
//     reset, range split, fault rules, metrics): control.go, faults_http.go,
//     metrics.go, with faults.go behind the fault rules;
//   - the data explorer under /_explorer/: explorer.go mounts the handler of
//     package server/explorer (which speaks only to the REST API, over
//     HTTP, and keeps the one small error map of its own API) and serves
//     the certificate.
//
// Routing works on the escaped request path (mux UseEncodedPath, no path
// cleaning) and unescapes each path variable on its own, so ids containing
// '/', '\', '%' or '?' round-trip; under /dbs/ a query string is part of
// the last segment (the JS SDK leaves '?' in ids unescaped). Trailing
// slashes are accepted everywhere. A path segment or header value that is
// not valid UTF-8, or a segment holding U+0000, is a 400 before routing.
//
// A master-key signature is accepted only for the exact verb, resource
// type and decoded link it covers; the lower-cased RID alone is the one
// alternative, for the RID-addressed requests the SDKs sign that way
// (linkCandidates). GET / names the account "cosmosdev" and advertises the
// endpoint the client dialled and the configured default consistency.
//
// Resource tokens (type=resource, resourcetoken.go) are the _token of a
// permission: self-contained, HMAC-authenticated under a key derived from
// the master key, valid until their expiry on the emulator clock. A
// request carrying one needs no x-ms-date; it is allowed only on the
// permission's resource and below (plus the account and the parent
// container's metadata), with its mode and partition key, else 403.
//
// Served unsigned besides GET /: /_emulator/health, /_explorer/emulator.pem,
// everything else under /_explorer/, given to Config.Explorer (the data
// explorer; 404 without one), and, with Config.Metrics, the Prometheus metrics at /_emulator/metrics.
// Every request is counted there by operation, resource type and status
// (classify, from the method, path and headers alone, with bounded label
// values), with its latency and request charge, change feed reads by mode
// and result; and logged in one line (method, path, status, duration,
// activity id, request charge) at debug level, or info with
// Config.LogRequests (metrics.go).
package wire
