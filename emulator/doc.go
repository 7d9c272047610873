// Package emulator is the domain of the Cosmos DB emulator: databases,
// containers, items, partition keys, system properties, time to live, error
// kinds, the Store interface and the Service that validates requests and
// orchestrates the store.
//
// Request flow, left to right, no way back:
//
//	SDK --HTTP(S)--> wire (route, auth, decode) --> emulator.Service (validate,
//	  stamp _ts/_etag, ETag rules, TTL rules) --> emulator.Store = pgstore (pgx)
//	  --> PostgreSQL
//	ttl.Sweeper --(Expirer.DeleteExpired)--> pgstore
//	server: config -> pgstore.Open -> emulator.New -> wire.NewHandler -> http.Server
//
// The package imports neither net/http nor pgx: HTTP status codes are assigned
// in package wire from the error Kind, and SQL lives in package pgstore.
//
// Time comes from one Clock, captured once per operation: _ts and expiry both
// read it, so tests can move time forward instead of sleeping.
package emulator
