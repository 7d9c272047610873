package tlscert

import (
	"bytes"
	"crypto"
	"crypto/tls"
	"encoding/pem"
	"fmt"
	"os"

	"software.sslmate.com/src/go-pkcs12"
)

// maxBundleSize bounds the certificate file read: a PKCS#12 file with a
// key and a chain of a few certificates is a few kilobytes.
const maxBundleSize = 1 << 20

// LoadBundle loads a certificate, its chain and its private key from one
// file: PKCS#12 (.pfx/.p12, as Microsoft's emulator takes with CERT_PATH
// and CERT_SECRET, and as .NET Aspire mounts its developer certificate),
// decrypted with password, or PEM holding the certificate(s) and the key
// (then password is ignored). It returns the certificate for the TLS
// server and the PEM of its certificates, leaf first, to serve at
// /_explorer/emulator.pem.
//
// PKCS#12 files of both kinds in use are read: the legacy encryption
// (3DES or RC2 with SHA-1, the default of older OpenSSL and of Windows)
// and the modern one (PBES2 with AES-256 and SHA-256, the default of
// OpenSSL 3 and .NET).
func LoadBundle(path, password string) (tls.Certificate, []byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("tlscert: %w", err)
	}
	if info.Size() > maxBundleSize {
		return tls.Certificate{}, nil, fmt.Errorf("tlscert: %s is %d bytes, more than a certificate file holds", path, info.Size())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("tlscert: %w", err)
	}
	if bytes.Contains(data, []byte("-----BEGIN ")) {
		cert, err := tls.X509KeyPair(data, data)
		if err != nil {
			return tls.Certificate{}, nil, fmt.Errorf("tlscert: %s: a PEM file must hold the certificate and its private key: %w", path, err)
		}
		return cert, certificateBlocks(data), nil
	}
	key, leaf, chain, err := pkcs12.DecodeChain(data, password)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("tlscert: %s is neither PEM nor a PKCS#12 file that opens with the given password (CERT_SECRET): %w", path, err)
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return tls.Certificate{}, nil, fmt.Errorf("tlscert: %s: unsupported private key type %T", path, key)
	}
	cert := tls.Certificate{PrivateKey: signer, Leaf: leaf, Certificate: [][]byte{leaf.Raw}}
	var out bytes.Buffer
	_ = pem.Encode(&out, &pem.Block{Type: "CERTIFICATE", Bytes: leaf.Raw})
	for _, c := range chain {
		cert.Certificate = append(cert.Certificate, c.Raw)
		_ = pem.Encode(&out, &pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})
	}
	// the key must belong to the certificate: a mismatch would only show
	// as failing handshakes
	if pub, ok := leaf.PublicKey.(interface{ Equal(crypto.PublicKey) bool }); !ok || !pub.Equal(signer.Public()) {
		return tls.Certificate{}, nil, fmt.Errorf("tlscert: %s: the private key does not match the certificate", path)
	}
	return cert, out.Bytes(), nil
}
