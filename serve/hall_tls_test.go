package serve

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestHallTLS runs serve as docs/workshop.md says to on a conference
// network: rediss:// with a password, the Redis's certificate from a CA
// of one's own given by SSL_CERT_FILE. Without that CA the link refuses
// the certificate, and neither log holds the password.
func TestHallTLS(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server is not installed (Debian/Ubuntu: apt-get install redis-server)")
	}
	dir := t.TempDir()
	ca, pool := writeTLSFiles(t, dir)
	const pass = "S3c@r%t:x" // every character the URL form treats specially
	port := startRedisTLS(t, dir, pass, pool)
	bin := buildInflight(t)

	stage := "rediss://:" + strings.ReplaceAll(pass, "%", "%25") + "@" + loopback(port) + "/0?key=hall-tls"
	var env []string // this process's, without a CA override of its own
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SSL_CERT_") {
			env = append(env, kv)
		}
	}
	args := []string{"--stage", stage, "--host-key", filepath.Join(dir, "host_ed25519")}
	trusting := startServe(t, "with-ca", append(env[:len(env):len(env)], "SSL_CERT_FILE="+ca), bin, args...)
	other := startServe(t, "without-ca", env, bin, args...)
	trusting.waitReady(t, func() bool { return strings.Contains(trusting.tail(20), "stage connected") })
	other.waitReady(t, func() bool {
		return strings.Contains(other.tail(20), "stage connection lost") && strings.Contains(other.tail(20), "certificate")
	})
	for _, p := range []*serveProc{trusting, other} {
		if log := p.tail(100); strings.Contains(log, pass) || strings.Contains(log, url.PathEscape(pass)) {
			t.Errorf("%s's log holds the password:\n%s", p.name, log)
		}
	}
}

// writeTLSFiles writes a CA (ca.pem) and a certificate it signed for
// 127.0.0.1 (redis.pem, redis.key) into dir.
func writeTLSFiles(t *testing.T, dir string) (string, *x509.CertPool) {
	t.Helper()
	now := time.Now()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "inflight hall test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	leaf := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore:   now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, caCert, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string]*pem.Block{
		"ca.pem":    {Type: "CERTIFICATE", Bytes: caDER},
		"redis.pem": {Type: "CERTIFICATE", Bytes: leafDER},
		"redis.key": {Type: "EC PRIVATE KEY", Bytes: keyDER},
	} {
		if err := os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(b), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	pool := x509.NewCertPool()
	pool.AddCert(caCert)
	return filepath.Join(dir, "ca.pem"), pool
}

// startRedisTLS starts redis-server speaking only TLS, with a password,
// and returns its port once it completes a handshake with a client that
// trusts pool.
func startRedisTLS(t *testing.T, dir, pass string, pool *x509.CertPool) int {
	t.Helper()
	bin, _ := exec.LookPath("redis-server")
	for attempt := 0; ; attempt++ {
		port := freePort(t)
		p := startProc(t, "redis-tls", nil, bin, "--port", "0", "--tls-port", strconv.Itoa(port), "--bind", "127.0.0.1",
			"--tls-cert-file", filepath.Join(dir, "redis.pem"), "--tls-key-file", filepath.Join(dir, "redis.key"),
			"--tls-ca-cert-file", filepath.Join(dir, "ca.pem"), "--tls-auth-clients", "no",
			"--requirepass", pass, "--save", "", "--appendonly", "no", "--dir", dir, "--daemonize", "no")
		ready := func() bool {
			c, err := tls.DialWithDialer(&net.Dialer{Timeout: time.Second}, "tcp", loopback(port), &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"})
			if err == nil {
				c.Close()
			}
			return err == nil
		}
		p.waitReady(t, func() bool { return !p.running() || ready() })
		if p.running() {
			return port
		}
		if attempt == 2 || !strings.Contains(p.tail(5), "in use") {
			t.Fatalf("redis-server with TLS did not start:\n%s", p.tail(20))
		}
	}
}
