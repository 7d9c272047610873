// Package wire is the REST surface of the emulator: gorilla/mux routes,
// master-key (and emulator-style AAD) authentication, decoding of headers
// and bodies into emulator requests, response headers and feed envelopes,
// and the ONE place where emulator error kinds become HTTP status codes,
// x-ms-substatus values and {"code","message"} bodies (errors.go).
//
// Routing works on the escaped request path (mux UseEncodedPath) and
// unescapes each path variable on its own, so ids containing '/', '%' or
// '?' round-trip. Trailing slashes are accepted everywhere.
package wire
