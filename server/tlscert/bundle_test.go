package tlscert

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"software.sslmate.com/src/go-pkcs12"
)

// testChain returns a leaf certificate for localhost signed by a CA, the
// leaf's RSA key (as .NET's developer certificate has) and the CA.
func testChain(t *testing.T) (leaf *x509.Certificate, key *rsa.PrivateKey, ca *x509.Certificate) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"}, NotBefore: now.Add(-time.Hour),
		NotAfter: now.Add(time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	if ca, err = x509.ParseCertificate(caDER); err != nil {
		t.Fatal(err)
	}
	if key, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
		t.Fatal(err)
	}
	leafTmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "localhost"}, DNSNames: []string{"localhost"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour), KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	leafDER, err := x509.CreateCertificate(rand.Reader, leafTmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	if leaf, err = x509.ParseCertificate(leafDER); err != nil {
		t.Fatal(err)
	}
	return leaf, key, ca
}

// TestLoadBundle: PKCS#12 files with the modern (AES, SHA-256) and the
// legacy (3DES, RC2, SHA-1) encryption, and a PEM file with certificate
// and key, load as the TLS certificate with its chain, and the PEM served
// at /_explorer/emulator.pem is the leaf, then the chain. A wrong
// password, a key of another certificate, a PEM without key and a file
// that is neither are errors that name the file.
func TestLoadBundle(t *testing.T) {
	leaf, key, ca := testChain(t)
	_, otherKey, _ := testChain(t)
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	encode := func(enc *pkcs12.Encoder, k any) []byte {
		b, err := enc.Encode(k, leaf, []*x509.Certificate{ca}, "s3cret")
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certPEM := append(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: leaf.Raw}), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.Raw})...)
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})

	for _, tc := range []struct {
		name, file, password string
	}{
		{"modern PKCS#12", write("modern.pfx", encode(pkcs12.Modern, key)), "s3cret"},
		{"legacy 3DES PKCS#12", write("des.pfx", encode(pkcs12.LegacyDES, key)), "s3cret"},
		{"legacy RC2 PKCS#12", write("rc2.p12", encode(pkcs12.LegacyRC2, key)), "s3cret"},
		{"PEM certificate and key", write("both.pem", append(append([]byte{}, certPEM...), keyPEM...)), "ignored"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cert, served, err := LoadBundle(tc.file, tc.password)
			if err != nil {
				t.Fatal(err)
			}
			if len(cert.Certificate) != 2 || !bytes.Equal(cert.Certificate[0], leaf.Raw) || !bytes.Equal(cert.Certificate[1], ca.Raw) {
				t.Errorf("chain of %d certificates, want leaf and CA", len(cert.Certificate))
			}
			if !bytes.Equal(served, certPEM) {
				t.Errorf("served PEM:\n%s\nwant:\n%s", served, certPEM)
			}
			if err := handshake(t, cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.Raw}), "localhost"); err != nil {
				t.Errorf("handshake: %v", err)
			}
		})
	}

	for _, tc := range []struct {
		name, file, password, want string
	}{
		{"wrong password", write("pw.pfx", encode(pkcs12.Modern, key)), "wrong", "the given password"},
		{"key of another certificate", write("other.pfx", encode(pkcs12.Modern, otherKey)), "s3cret", "does not match"},
		{"PEM without key", write("cert.pem", certPEM), "", "must hold the certificate and its private key"},
		{"neither PEM nor PKCS#12", write("junk.pfx", []byte("not a certificate")), "", "neither PEM nor a PKCS#12"},
		{"missing", filepath.Join(dir, "missing.pfx"), "", "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := LoadBundle(tc.file, tc.password)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), filepath.Base(tc.file)) {
				t.Errorf("err = %v, want one naming %s with %q", err, filepath.Base(tc.file), tc.want)
			}
		})
	}
}
