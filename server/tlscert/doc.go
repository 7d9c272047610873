// Package tlscert provides the TLS certificate the emulator serves HTTPS
// with.
//
// By default the emulator uses a self-signed certificate that is generated
// on first start and stored in a directory (normally the emulator's data
// directory) as two PEM files:
//
//   - emulator.pem: the certificate, world-readable. The same bytes are
//     served at /_explorer/emulator.pem so that clients can download it.
//   - emulator.key: the ECDSA P-256 private key, mode 0600.
//
// The certificate is its own certification authority (basic constraints
// CA:TRUE, key usage certSign and digitalSignature, extended key usage
// serverAuth), so a client can trust the emulator by adding the single PEM
// file to its trust store, for example through SSL_CERT_FILE (OpenSSL and
// Go), NODE_EXTRA_CA_CERTS (Node.js), REQUESTS_CA_BUNDLE (Python requests)
// or an x509.CertPool.
//
// The certificate is reused across restarts, so a client that trusted it
// once keeps working. [LoadOrCreate] replaces it only when it is missing or
// unreadable, when it does not cover a requested host name or address, or
// when it expires within 30 days.
//
// [LoadFiles] loads a user-supplied certificate and key instead (the
// --cert and --cert-key flags).
package tlscert
