package tlscert

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fixedNow returns a clock frozen at t.
func fixedNow(t time.Time) func() time.Time { return func() time.Time { return t } }

// readFile reads a file or fails the test.
func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// pool returns a certificate pool holding the certificates of pemData.
func pool(t *testing.T, pemData []byte) *x509.CertPool {
	t.Helper()
	p := x509.NewCertPool()
	if !p.AppendCertsFromPEM(pemData) {
		t.Fatal("AppendCertsFromPEM found no certificate")
	}
	return p
}

// leafOf parses the first certificate of c.
func leafOf(t *testing.T, c tls.Certificate) *x509.Certificate {
	t.Helper()
	leaf, err := x509.ParseCertificate(c.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	return leaf
}

func TestLoadOrCreateCreatesFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nested", "data")
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	cert, certPEM, err := LoadOrCreate(Options{Dir: dir, Hosts: []string{"cosmos-emulator", " 10.1.2.3 ", "", "[fd00::5]", "Example.TEST."}, Now: fixedNow(now)})
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(dir, CertFileName)); !bytes.Equal(got, certPEM) {
		t.Error("returned PEM differs from emulator.pem on disk")
	}
	for name, want := range map[string]os.FileMode{KeyFileName: 0o600, CertFileName: 0o644} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s mode = %v, want %v", name, got, want)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 {
		t.Errorf("dir has %d entries, want only the two files (no temporaries)", len(entries))
	}
	if block, _ := pem.Decode(readFile(t, filepath.Join(dir, KeyFileName))); block == nil || block.Type != "PRIVATE KEY" {
		t.Errorf("emulator.key is not a PEM PRIVATE KEY")
	}

	leaf := leafOf(t, cert)
	if leaf.PublicKeyAlgorithm != x509.ECDSA {
		t.Errorf("public key algorithm = %v, want ECDSA", leaf.PublicKeyAlgorithm)
	}
	if leaf.Subject.CommonName != "localhost" {
		t.Errorf("CommonName = %q", leaf.Subject.CommonName)
	}
	if !leaf.IsCA || !leaf.BasicConstraintsValid {
		t.Error("certificate is not a CA")
	}
	if leaf.KeyUsage != x509.KeyUsageCertSign|x509.KeyUsageDigitalSignature {
		t.Errorf("KeyUsage = %v", leaf.KeyUsage)
	}
	if len(leaf.ExtKeyUsage) != 1 || leaf.ExtKeyUsage[0] != x509.ExtKeyUsageServerAuth {
		t.Errorf("ExtKeyUsage = %v", leaf.ExtKeyUsage)
	}
	if want := now.Add(-time.Hour); !leaf.NotBefore.Equal(want) {
		t.Errorf("NotBefore = %v, want %v", leaf.NotBefore, want)
	}
	if d := leaf.NotAfter.Sub(now); d < 700*24*time.Hour || d > 825*24*time.Hour {
		t.Errorf("validity = %v, want about two years", d)
	}
	wantDNS := []string{"localhost", "cosmos-emulator", "example.test"}
	if strings.Join(leaf.DNSNames, ",") != strings.Join(wantDNS, ",") {
		t.Errorf("DNSNames = %v, want %v", leaf.DNSNames, wantDNS)
	}
	var ips []string
	for _, ip := range leaf.IPAddresses {
		ips = append(ips, ip.String())
	}
	if got, want := strings.Join(ips, ","), "127.0.0.1,::1,10.1.2.3,fd00::5"; got != want {
		t.Errorf("IPAddresses = %s, want %s", got, want)
	}
}

func TestLoadOrCreateReuseAndRegenerate(t *testing.T) {
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name       string
		hosts      []string // hosts on the second call
		at         time.Time
		corrupt    string // file to overwrite with garbage before the second call
		remove     string // file to remove before the second call
		regenerate bool
	}{
		{name: "same hosts", hosts: []string{"db.local"}, at: start, regenerate: false},
		{name: "default hosts only", hosts: nil, at: start.Add(24 * time.Hour), regenerate: false},
		{name: "host spelled differently", hosts: []string{" DB.local "}, at: start, regenerate: false},
		{name: "default written explicitly", hosts: []string{"localhost", "[::1]"}, at: start, regenerate: false},
		{name: "new DNS name", hosts: []string{"db.local", "cosmos-emulator"}, at: start, regenerate: true},
		{name: "new IP address", hosts: []string{"192.0.2.7"}, at: start, regenerate: true},
		{name: "31 days before expiry", hosts: nil, at: start.Add(validity - 31*24*time.Hour), regenerate: false},
		{name: "29 days before expiry", hosts: nil, at: start.Add(validity - 29*24*time.Hour), regenerate: true},
		{name: "expired", hosts: nil, at: start.Add(validity + time.Hour), regenerate: true},
		{name: "clock moved before NotBefore", hosts: nil, at: start.Add(-2 * time.Hour), regenerate: true},
		{name: "corrupt certificate", hosts: nil, at: start, corrupt: CertFileName, regenerate: true},
		{name: "corrupt key", hosts: nil, at: start, corrupt: KeyFileName, regenerate: true},
		{name: "missing key", hosts: nil, at: start, remove: KeyFileName, regenerate: true},
		{name: "missing certificate", hosts: nil, at: start, remove: CertFileName, regenerate: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			_, firstPEM, err := LoadOrCreate(Options{Dir: dir, Hosts: []string{"db.local"}, Now: fixedNow(start)})
			if err != nil {
				t.Fatal(err)
			}
			firstKey := readFile(t, filepath.Join(dir, KeyFileName))
			if tc.corrupt != "" {
				if err := os.WriteFile(filepath.Join(dir, tc.corrupt), []byte("garbage"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if tc.remove != "" {
				if err := os.Remove(filepath.Join(dir, tc.remove)); err != nil {
					t.Fatal(err)
				}
			}

			cert, secondPEM, err := LoadOrCreate(Options{Dir: dir, Hosts: tc.hosts, Now: fixedNow(tc.at)})
			if err != nil {
				t.Fatal(err)
			}
			secondKey := readFile(t, filepath.Join(dir, KeyFileName))
			if !bytes.Equal(secondPEM, readFile(t, filepath.Join(dir, CertFileName))) {
				t.Error("returned PEM differs from emulator.pem on disk")
			}
			reused := bytes.Equal(firstPEM, secondPEM) && bytes.Equal(firstKey, secondKey)
			if reused == tc.regenerate {
				t.Fatalf("reused = %v, want %v", reused, !tc.regenerate)
			}
			if !tc.regenerate {
				return
			}
			if bytes.Equal(firstKey, secondKey) {
				t.Error("regenerated certificate kept the old key")
			}
			leaf := leafOf(t, cert)
			if !tc.at.Add(renewBefore).Before(leaf.NotAfter) || tc.at.Before(leaf.NotBefore) {
				t.Errorf("regenerated certificate not valid at %v: %v..%v", tc.at, leaf.NotBefore, leaf.NotAfter)
			}
			// The regenerated certificate covers the requested hosts, and
			// keeps the ones of the previous certificate when it was readable.
			want := append([]string{"localhost", "127.0.0.1", "::1"}, tc.hosts...)
			if tc.corrupt == "" && tc.remove == "" {
				want = append(want, "db.local")
			}
			for _, h := range want {
				if err := leaf.VerifyHostname(strings.TrimSpace(h)); err != nil {
					t.Errorf("regenerated certificate: %v", err)
				}
			}
			// A third call with the same options reuses it.
			_, thirdPEM, err := LoadOrCreate(Options{Dir: dir, Hosts: tc.hosts, Now: fixedNow(tc.at)})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(secondPEM, thirdPEM) {
				t.Error("regenerated certificate was not reused by the next call")
			}
		})
	}
}

func TestLoadOrCreateErrors(t *testing.T) {
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		dir  string
	}{
		{name: "empty dir", dir: ""},
		{name: "dir is a file", dir: notDir},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := LoadOrCreate(Options{Dir: tc.dir}); err == nil {
				t.Fatal("LoadOrCreate succeeded, want error")
			}
		})
	}
}

func TestVerifyAgainstPEMPool(t *testing.T) {
	dir := t.TempDir()
	cert, certPEM, err := LoadOrCreate(Options{Dir: dir, Hosts: []string{"cosmos-emulator", "10.0.0.9"}})
	if err != nil {
		t.Fatal(err)
	}
	roots := pool(t, certPEM)
	leaf := leafOf(t, cert)
	tests := []struct {
		host string
		ok   bool
	}{
		{"localhost", true},
		{"127.0.0.1", true},
		{"::1", true},
		{"cosmos-emulator", true},
		{"10.0.0.9", true},
		{"other.example", false},
		{"10.0.0.10", false},
	}
	for _, tc := range tests {
		t.Run(tc.host, func(t *testing.T) {
			_, err := leaf.Verify(x509.VerifyOptions{
				DNSName:   tc.host,
				Roots:     roots,
				KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
			})
			if (err == nil) != tc.ok {
				t.Fatalf("Verify(%q) error = %v, want ok=%v", tc.host, err, tc.ok)
			}
		})
	}
	// Without the PEM in the pool the certificate is not trusted.
	if _, err := leaf.Verify(x509.VerifyOptions{DNSName: "localhost", Roots: x509.NewCertPool()}); err == nil {
		t.Error("Verify with an empty pool succeeded")
	}
}

// handshake serves one TLS connection with cert on 127.0.0.1 and dials it
// with a client that trusts only rootPEM and expects serverName.
func handshake(t *testing.T, cert tls.Certificate, rootPEM []byte, serverName string) error {
	t.Helper()
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	served := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			served <- err
			return
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		if err := c.(*tls.Conn).Handshake(); err != nil {
			served <- err
			return
		}
		_, err = io.WriteString(c, "ok")
		served <- err
	}()

	dialer := &net.Dialer{Timeout: 10 * time.Second}
	conn, err := tls.DialWithDialer(dialer, "tcp", ln.Addr().String(), &tls.Config{
		RootCAs:    pool(t, rootPEM),
		ServerName: serverName,
		MinVersion: tls.VersionTLS12,
	})
	if err != nil {
		<-served
		return err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 2)
	if _, err := io.ReadFull(conn, buf); err != nil {
		t.Fatalf("read after handshake: %v", err)
	}
	if string(buf) != "ok" {
		t.Fatalf("read %q, want ok", buf)
	}
	if err := <-served; err != nil {
		t.Fatalf("server: %v", err)
	}
	return nil
}

func TestTLSHandshake(t *testing.T) {
	cert, certPEM, err := LoadOrCreate(Options{Dir: t.TempDir(), Hosts: []string{"cosmos-emulator"}})
	if err != nil {
		t.Fatal(err)
	}
	_, otherPEM, err := LoadOrCreate(Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		rootPEM    []byte
		serverName string
		ok         bool
	}{
		{"localhost", certPEM, "localhost", true},
		{"loopback IPv4", certPEM, "127.0.0.1", true},
		{"extra host", certPEM, "cosmos-emulator", true},
		{"name not in certificate", certPEM, "elsewhere.example", false},
		{"another emulator's certificate", otherPEM, "localhost", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := handshake(t, cert, tc.rootPEM, tc.serverName)
			if (err == nil) != tc.ok {
				t.Fatalf("handshake error = %v, want ok=%v", err, tc.ok)
			}
		})
	}
}

func TestLoadFiles(t *testing.T) {
	dirA, dirB := t.TempDir(), t.TempDir()
	_, pemA, err := LoadOrCreate(Options{Dir: dirA})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadOrCreate(Options{Dir: dirB}); err != nil {
		t.Fatal(err)
	}
	certA, keyA := filepath.Join(dirA, CertFileName), filepath.Join(dirA, KeyFileName)
	keyB := filepath.Join(dirB, KeyFileName)

	// A file holding the key first and then the certificate, as some tools
	// write a combined PEM.
	combined := filepath.Join(t.TempDir(), "combined.pem")
	if err := os.WriteFile(combined, append(readFile(t, keyA), pemA...), 0o600); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name      string
		cert, key string
		wantErr   string
		wantPEM   []byte
	}{
		{name: "round trip", cert: certA, key: keyA, wantPEM: pemA},
		{name: "combined file", cert: combined, key: combined, wantPEM: pemA},
		{name: "mismatched key", cert: certA, key: keyB, wantErr: "private key does not match"},
		{name: "missing certificate", cert: filepath.Join(dirA, "nope.pem"), key: keyA, wantErr: "read certificate"},
		{name: "missing key", cert: certA, key: filepath.Join(dirA, "nope.key"), wantErr: "read key"},
		{name: "key given as certificate", cert: keyA, key: keyA, wantErr: "load"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cert, gotPEM, err := LoadFiles(tc.cert, tc.key)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(gotPEM, tc.wantPEM) {
				t.Errorf("PEM = %q, want %q", gotPEM, tc.wantPEM)
			}
			if bytes.Contains(gotPEM, []byte("PRIVATE KEY")) {
				t.Error("returned PEM contains the private key")
			}
			if err := handshake(t, cert, gotPEM, "localhost"); err != nil {
				t.Errorf("handshake with loaded certificate: %v", err)
			}
		})
	}
}
