//go:build unix

package stagelink

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// redisProc is a private redis-server on a loopback port, without
// persistence, which a test can kill and start again on the same port.
type redisProc struct {
	t      testing.TB
	bin    string
	port   int
	args   []string // beyond port, bind and persistence
	dir    string
	cmd    *exec.Cmd
	exited chan struct{}
	// how the test reaches it to see it is up
	tls  *tls.Config
	pass string
}

// startRedis starts a private redis-server on a free loopback port and
// stops it when the test ends. The port is found by binding :0 and
// closing it, so another process may take it first: then another is
// tried. tlsFiles (cert, key) serve TLS only, with pass required.
func startRedis(t testing.TB, tlsCfg *tls.Config, pass string, tlsFiles ...string) *redisProc {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server is not installed (Debian/Ubuntu: apt-get install redis-server)")
	}
	var lastErr error
	for range 3 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		r := &redisProc{t: t, bin: bin, port: l.Addr().(*net.TCPAddr).Port, dir: t.TempDir(), tls: tlsCfg, pass: pass}
		l.Close()
		if len(tlsFiles) == 2 {
			r.args = []string{"--port", "0", "--tls-port", strconv.Itoa(r.port),
				"--tls-cert-file", tlsFiles[0], "--tls-key-file", tlsFiles[1], "--tls-auth-clients", "no"}
		} else {
			r.args = []string{"--port", strconv.Itoa(r.port)}
		}
		if pass != "" {
			r.args = append(r.args, "--requirepass", pass)
		}
		if lastErr = r.start(); lastErr == nil {
			t.Cleanup(r.kill)
			return r
		}
	}
	t.Fatal(lastErr)
	return nil
}

func (r *redisProc) addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(r.port)) }

func (r *redisProc) start() error {
	logPath := filepath.Join(r.dir, "redis.log")
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	// through a pipe, so that its "Ready to accept connections" wakes the
	// wait below; in the file too, for what it says when it exits
	out := &syncBuf{}
	// keyspace notifications on, for keyUntil
	r.cmd = exec.Command(r.bin, append([]string{"--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", r.dir, "--daemonize", "no", "--notify-keyspace-events", "KA"}, r.args...)...)
	r.cmd.Stdout = io.MultiWriter(logf, out)
	r.cmd.Stderr = r.cmd.Stdout
	r.cmd.WaitDelay = time.Second // a grandchild holding the pipe does not hold Wait
	r.cmd.SysProcAttr = childProcAttr()
	if err := r.cmd.Start(); err != nil {
		logf.Close()
		return err
	}
	r.exited = make(chan struct{})
	go func(c *exec.Cmd, exited chan struct{}) { c.Wait(); logf.Close(); close(exited) }(r.cmd, r.exited)
	rdb := openRaw(r.t, r)
	defer rdb.Close()
	hang := time.NewTimer(hung) // fails only a start that hangs
	defer hang.Stop()
	for {
		more := out.grown() // before asking, so a line between the two wakes us
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		info, err := rdb.Info(ctx, "server").Result()
		cancel()
		if err == nil {
			if !strings.Contains(info, "process_id:"+strconv.Itoa(r.cmd.Process.Pid)+"\r\n") {
				r.kill()
				return fmt.Errorf("port %d was taken by another server", r.port)
			}
			return nil
		}
		select {
		case <-more:
		case <-r.exited:
			b, _ := os.ReadFile(logPath)
			if strings.Contains(string(b), "tls-port") {
				r.t.Skipf("this redis-server has no TLS: %s", lastLine(b))
			}
			return fmt.Errorf("redis-server on %s exited at start: %s", r.addr(), lastLine(b))
		case <-hang.C:
			r.kill()
			return fmt.Errorf("redis-server on %s did not answer: %v", r.addr(), err)
		}
	}
}

// kill ends the server at once, as a crash would.
func (r *redisProc) kill() {
	if r.cmd == nil || r.cmd.Process == nil {
		return
	}
	syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL)
	<-r.exited
	r.cmd = nil
}

// restart starts it again on the same port, empty (no persistence).
func (r *redisProc) restart() {
	r.t.Helper()
	if err := r.start(); err != nil {
		r.t.Fatal(err)
	}
}

func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return lines[len(lines)-1]
}

// selfSigned writes a CA-less self-signed certificate for 127.0.0.1 into
// dir and returns its files and a pool that trusts it.
func selfSigned(t testing.TB, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "stagelink test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IsCA: true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// openRaw is a plain client of r's, to look at what the link wrote.
func openRaw(t testing.TB, r *redisProc) *redis.Client {
	return redis.NewClient(&redis.Options{Addr: r.addr(), Password: r.pass, TLSConfig: r.tls, Protocol: 2,
		DisableIdentity: true, MaxRetries: -1,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}})
}
