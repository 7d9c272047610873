// Package rntbd is the frame codec and connection loop of RNTBD, the binary
// protocol over TLS that the Cosmos DB SDKs speak in direct mode (the Java
// SDK's default connection). It knows frames and tokens only: what a request
// means is decided by a Handler (package wire maps documents onto the
// emulator's service).
//
// The layout, token ids and types are those of the Java SDK's
// RntbdConstants, RntbdRequest, RntbdResponse, RntbdTokenStream and
// RntbdContext (azure-cosmos 4.81.0 sources, package
// com.azure.cosmos.implementation.directconnectivity.rntbd). Every integer is
// little-endian and every frame's length prefix counts its own four bytes.
//
// A request frame is
//
//	u32 length | u16 resourceType | u16 operationType | 16-byte activity id | tokens
//	[u32 payloadLength | payload]   (only when the PayloadPresent token is 1)
//
// and a response frame
//
//	u32 length | i32 status | 16-byte activity id | tokens
//	[u32 payloadLength | payload]   (only when the PayloadPresent token is 1)
//
// where a token is u16 id | u8 type | value, and a token list runs to the
// end of the header (length bytes), with no count.
package rntbd
