package serve

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/charmbracelet/keygen"
	"github.com/charmbracelet/ssh"
	gossh "golang.org/x/crypto/ssh"
)

// KeyFileError is a key list (Config.AuthorizedKeys or PresenterKeys)
// that could not be used: the command reports it against its flag.
type KeyFileError struct {
	Field string // "AuthorizedKeys" or "PresenterKeys"
	Err   error
}

func (e *KeyFileError) Error() string { return e.Err.Error() }
func (e *KeyFileError) Unwrap() error { return e.Err }

// keySet is a set of public keys, by their wire encoding.
type keySet map[string]struct{}

// has reports whether k is in the set.
func (ks keySet) has(k ssh.PublicKey) bool {
	if k == nil {
		return false
	}
	_, ok := ks[string(k.Marshal())]
	return ok
}

// loadKeys reads an authorized_keys file. A line that does not parse is an
// error naming the line, and so is a file with no keys at all: an empty
// allowlist would lock everyone out, which is never what was meant.
func loadKeys(path string) (keySet, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	ks := keySet{}
	for i, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		k, _, _, _, err := gossh.ParseAuthorizedKey(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: not a public key: %w", path, i+1, err)
		}
		ks[string(k.Marshal())] = struct{}{}
	}
	if len(ks) == 0 {
		return nil, fmt.Errorf("%s: no public keys in it", path)
	}
	return ks, nil
}

// allowKey is the only authentication there is (no passwords, no
// keyboard-interactive): any key when no allowlist was given, else the
// listed keys and the presenters'. A key turned away is logged by its
// fingerprint (never the key itself), so an organiser can tell an
// attendee which key to send.
func (s *Server) allowKey(ctx ssh.Context, k ssh.PublicKey) bool {
	if s.authorized == nil || s.authorized.has(k) || s.presenters.has(k) {
		return true
	}
	s.log.Info("rejected key", "key", gossh.FingerprintSHA256(k), "user", userOf(ctx), "remote", ctx.RemoteAddr().String())
	return false
}

// ensureHostKey creates an ed25519 host key at path (mode 0600, its
// directory 0700) unless one is there, and returns the key's fingerprint
// so the presenter can show it on a slide.
func ensureHostKey(path string) (string, error) {
	_, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return "", fmt.Errorf("host key: %w", err)
		}
		if _, err := keygen.New(path, keygen.WithKeyType(keygen.Ed25519), keygen.WithWrite()); err != nil {
			return "", fmt.Errorf("host key: %w", err)
		}
		if err := os.Chmod(path, 0o600); err != nil {
			return "", fmt.Errorf("host key: %w", err)
		}
	case err != nil:
		return "", fmt.Errorf("host key: %w", err)
	}
	pem, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("host key: %w", err)
	}
	signer, err := gossh.ParsePrivateKey(pem)
	if err != nil {
		return "", fmt.Errorf("host key %s: %w", path, err)
	}
	return gossh.FingerprintSHA256(signer.PublicKey()), nil
}
