package tlscert

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// File names used inside Options.Dir.
const (
	// CertFileName is the name of the PEM-encoded certificate file.
	CertFileName = "emulator.pem"
	// KeyFileName is the name of the PEM-encoded (PKCS #8) private key file.
	KeyFileName = "emulator.key"
)

const (
	// validity is how long a generated certificate is valid. It stays below
	// the 825 days some platforms accept for TLS server certificates.
	validity = 2 * 365 * 24 * time.Hour
	// backdate is subtracted from the current time for NotBefore, to
	// tolerate small clock differences between the emulator and its clients.
	backdate = time.Hour
	// renewBefore is how long before expiry a certificate is regenerated.
	renewBefore = 30 * 24 * time.Hour
)

// defaultHosts are always covered by a generated certificate.
var defaultHosts = []string{"localhost", "127.0.0.1", "::1"}

// Options configures LoadOrCreate.
type Options struct {
	// Dir is the directory holding emulator.pem (the certificate, PEM) and
	// emulator.key (the private key, PEM, mode 0600). It is created, with
	// mode 0700, when it does not exist. Required.
	Dir string

	// Hosts lists extra DNS names and IP addresses the certificate must
	// cover besides localhost, 127.0.0.1 and ::1. Each entry that
	// net.ParseIP accepts (brackets around an IPv6 address are allowed) is
	// an IP address; anything else is a DNS name. Empty entries are ignored.
	Hosts []string

	// Now returns the current time. Nil means time.Now. Tests use it to
	// simulate the passing of time.
	Now func() time.Time
}

// LoadOrCreate returns the certificate stored in opts.Dir together with its
// PEM encoding, creating it when absent.
//
// An existing certificate is reused unchanged unless it cannot be loaded, it
// does not cover every default and requested host, or it has expired or
// expires within 30 days; in those cases a new key and certificate are
// generated and atomically replace the files. A regenerated certificate
// keeps covering the hosts the previous one covered, so that alternating
// between configurations does not regenerate it each time.
func LoadOrCreate(opts Options) (tls.Certificate, []byte, error) {
	if opts.Dir == "" {
		return tls.Certificate{}, nil, errors.New("tlscert: Options.Dir is empty")
	}
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	t := now()
	dns, ips := splitHosts(append(slices.Clone(defaultHosts), opts.Hosts...))

	certPath := filepath.Join(opts.Dir, CertFileName)
	keyPath := filepath.Join(opts.Dir, KeyFileName)

	cert, certPEM, err := loadPair(certPath, keyPath)
	switch {
	case err == nil:
		leaf := cert.Leaf
		if covers(leaf, dns, ips) && !t.Before(leaf.NotBefore) && t.Add(renewBefore).Before(leaf.NotAfter) {
			return cert, certPEM, nil
		}
		// Keep the names of the old certificate.
		dns = mergeDNS(dns, leaf.DNSNames)
		ips = mergeIPs(ips, leaf.IPAddresses)
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, errInvalid):
		// Missing or unusable: generate a new one below.
	default:
		return tls.Certificate{}, nil, err
	}

	certPEM, keyPEM, err := generate(t, dns, ips)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	if err := os.MkdirAll(opts.Dir, 0o700); err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("tlscert: %w", err)
	}
	// The key goes first: if writing the certificate fails, the pair no
	// longer matches and the next call regenerates both.
	if err := writeFileAtomic(keyPath, keyPEM, 0o600); err != nil {
		return tls.Certificate{}, nil, err
	}
	if err := writeFileAtomic(certPath, certPEM, 0o644); err != nil {
		return tls.Certificate{}, nil, err
	}
	cert, err = tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("tlscert: generated certificate: %w", err)
	}
	return cert, certPEM, nil
}

// LoadFiles loads a user-supplied PEM certificate and private key, as given
// by the --cert and --cert-key flags. It returns the certificate together
// with the PEM encoding of the certificate blocks of certFile (the leaf and
// any chain that follows it; other blocks are dropped), suitable for
// serving at /_explorer/emulator.pem.
func LoadFiles(certFile, keyFile string) (tls.Certificate, []byte, error) {
	certData, err := os.ReadFile(certFile)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("tlscert: read certificate: %w", err)
	}
	keyData, err := os.ReadFile(keyFile)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("tlscert: read key: %w", err)
	}
	cert, err := tls.X509KeyPair(certData, keyData)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("tlscert: load %s and %s: %w", certFile, keyFile, err)
	}
	return cert, certificateBlocks(certData), nil
}

// errInvalid marks stored files that exist but cannot be used.
var errInvalid = errors.New("invalid certificate or key")

// loadPair reads and parses the stored certificate and key. It returns an
// error wrapping fs.ErrNotExist when a file is missing and one wrapping
// errInvalid when the files do not form a valid pair.
func loadPair(certPath, keyPath string) (tls.Certificate, []byte, error) {
	certPEM, err := os.ReadFile(certPath)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("tlscert: %w", err)
	}
	keyPEM, err := os.ReadFile(keyPath)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("tlscert: %w", err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("tlscert: %w: %v", errInvalid, err)
	}
	if cert.Leaf == nil {
		leaf, err := x509.ParseCertificate(cert.Certificate[0])
		if err != nil {
			return tls.Certificate{}, nil, fmt.Errorf("tlscert: %w: %v", errInvalid, err)
		}
		cert.Leaf = leaf
	}
	return cert, certPEM, nil
}

// generate creates a new self-signed ECDSA P-256 certificate valid at t for
// the given names, returning the certificate and key in PEM.
func generate(t time.Time, dns []string, ips []net.IP) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("tlscert: generate key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, nil, fmt.Errorf("tlscert: generate serial number: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject: pkix.Name{
			CommonName:   "localhost",
			Organization: []string{"Cosmos DB Emulator"},
		},
		NotBefore:             t.Add(-backdate),
		NotAfter:              t.Add(validity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
		DNSNames:              dns,
		IPAddresses:           ips,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, fmt.Errorf("tlscert: create certificate: %w", err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, fmt.Errorf("tlscert: marshal key: %w", err)
	}
	certPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM = pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})
	return certPEM, keyPEM, nil
}

// splitHosts normalizes hosts into de-duplicated DNS names (lower-case) and
// IP addresses, in order of first appearance.
func splitHosts(hosts []string) (dns []string, ips []net.IP) {
	for _, h := range hosts {
		h = strings.TrimSpace(h)
		if h == "" {
			continue
		}
		if ip := net.ParseIP(strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")); ip != nil {
			ips = mergeIPs(ips, []net.IP{ip})
			continue
		}
		dns = mergeDNS(dns, []string{strings.ToLower(strings.TrimSuffix(h, "."))})
	}
	return dns, ips
}

// mergeDNS appends to dst the names of src it does not contain yet.
func mergeDNS(dst, src []string) []string {
	for _, name := range src {
		if !slices.ContainsFunc(dst, func(d string) bool { return strings.EqualFold(d, name) }) {
			dst = append(dst, name)
		}
	}
	return dst
}

// mergeIPs appends to dst the addresses of src it does not contain yet.
func mergeIPs(dst, src []net.IP) []net.IP {
	for _, ip := range src {
		if !slices.ContainsFunc(dst, ip.Equal) {
			dst = append(dst, ip)
		}
	}
	return dst
}

// covers reports whether leaf lists every one of dns and ips literally in
// its subject alternative names.
func covers(leaf *x509.Certificate, dns []string, ips []net.IP) bool {
	for _, name := range dns {
		if !slices.ContainsFunc(leaf.DNSNames, func(d string) bool { return strings.EqualFold(d, name) }) {
			return false
		}
	}
	for _, ip := range ips {
		if !slices.ContainsFunc(leaf.IPAddresses, ip.Equal) {
			return false
		}
	}
	return true
}

// certificateBlocks returns the PEM re-encoding of the CERTIFICATE blocks
// in data, in order.
func certificateBlocks(data []byte) []byte {
	var out bytes.Buffer
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			return out.Bytes()
		}
		if block.Type == "CERTIFICATE" {
			_ = pem.Encode(&out, &pem.Block{Type: block.Type, Bytes: block.Bytes})
		}
	}
}

// writeFileAtomic writes data to a temporary file in the target's directory
// and renames it over path, so readers never see a partial file.
func writeFileAtomic(path string, data []byte, perm os.FileMode) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("tlscert: %w", err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	if err = f.Chmod(perm); err != nil {
		return fmt.Errorf("tlscert: %w", err)
	}
	if _, err = f.Write(data); err != nil {
		return fmt.Errorf("tlscert: write %s: %w", path, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("tlscert: sync %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("tlscert: close %s: %w", path, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("tlscert: %w", err)
	}
	return nil
}
