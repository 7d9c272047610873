// Package wire is the REST surface of the emulator: gorilla/mux routes,
// master-key (and emulator-style AAD) authentication, decoding of headers
// and bodies into emulator requests, response headers and feed envelopes,
// and the ONE place where emulator error kinds become HTTP status codes,
// x-ms-substatus values and {"code","message"} bodies (errors.go).
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
package wire
