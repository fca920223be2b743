package stagelink

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// URL is where the stage is carried: `redis://[[USER]:PASSWORD@]HOST[:PORT][/DB][?key=NAME]`,
// or `rediss://…` for TLS.
type URL struct {
	TLS      bool
	Host     string // without brackets for an IPv6 address
	Port     int
	Username string
	Password string
	DB       int
	Key      string // the prefix of every Redis key and channel the link uses
}

// DefaultKey is the key prefix when the URL names none.
const DefaultKey = "inflight"

// PasswordEnv names the environment variable that gives the password
// when the URL has none: `ps` shows a command line to every user of the
// machine, a process's environment only to its owner and root.
const PasswordEnv = "INFLIGHT_STAGE_PASSWORD"

const (
	maxURL  = 2048
	maxKey  = 64
	maxDB   = 1 << 16
	defPort = 6379
)

// URLError says what is wrong with a --stage URL and where. It never
// holds the password.
type URLError struct {
	Part string // scheme, password, host, port, database, query, key
	Msg  string
}

func (e *URLError) Error() string { return e.Part + ": " + e.Msg }

func bad(part, format string, a ...any) error {
	return &URLError{Part: part, Msg: fmt.Sprintf(format, a...)}
}

// ParseURL reads a --stage URL. It is written here rather than taken
// from redis.ParseURL: that one accepts a score of client knobs (among
// them skip_verify, which would turn TLS into decoration) and its errors
// can quote the password.
func ParseURL(s string) (URL, error) {
	u, err := parse(s)
	if err == nil {
		err = u.needsPassword()
	}
	return u, err
}

// needsPassword refuses a user name with no password: the user is an ACL
// user, which has one.
func (u URL) needsPassword() error {
	if u.Username != "" && u.Password == "" {
		// not quoted: a password written without its ':' is read as the user
		return bad("password", "a user without one: want USER:PASSWORD@ (or :PASSWORD@) before the host, or the password in %s", PasswordEnv)
	}
	return nil
}

// parse reads a URL whose user may still lack its password.
func parse(s string) (URL, error) {
	var u URL
	if len(s) > maxURL {
		return u, bad("url", "longer than %d bytes", maxURL)
	}
	scheme, rest, ok := strings.Cut(s, "://")
	switch strings.ToLower(scheme) {
	case "redis":
	case "rediss":
		u.TLS = true
	default:
		if !ok {
			return u, bad("scheme", "want redis://HOST:PORT/DB or rediss://… (TLS)")
		}
		return u, bad("scheme", "%q: want redis:// or rediss:// (TLS)", clip(scheme))
	}
	// Nothing after the credentials may hold an '@', so the last one ends
	// them, and a password may hold '/', '?' or '#' unescaped.
	if i := strings.LastIndexByte(rest, '@'); i >= 0 {
		if err := u.userinfo(rest[:i]); err != nil {
			return u, err
		}
		rest = rest[i+1:]
	}
	if strings.IndexByte(rest, '#') >= 0 {
		return u, bad("url", "a fragment (#…) means nothing here")
	}
	rest, query, _ := strings.Cut(rest, "?")
	authority, path, _ := strings.Cut(rest, "/")
	if err := u.hostPort(authority); err != nil {
		return u, err
	}
	if err := u.database(path); err != nil {
		return u, err
	}
	return u, u.options(query)
}

// ParseURLEnv is ParseURL taking the password from getenv(PasswordEnv)
// when the URL has none. A URL with a password while the variable is set
// too is refused, naming both: one of them is stale, and which one is
// not for the link to guess.
func ParseURLEnv(s string, getenv func(string) string) (URL, error) {
	u, err := parse(s)
	if err != nil {
		return u, err
	}
	env := getenv(PasswordEnv)
	switch {
	case env == "":
	case u.Password != "":
		return URL{}, bad("password", "given both in the URL and in %s: give it in one place (the variable keeps it out of ps)", PasswordEnv)
	default:
		u.Password = env
	}
	return u, u.needsPassword()
}

// userinfo reads USER:PASSWORD, :PASSWORD or USER (its password to come
// from the environment), percent-escaped.
func (u *URL) userinfo(info string) error {
	user, pass, ok := strings.Cut(info, ":")
	var err error
	if u.Username, err = url.PathUnescape(user); err != nil {
		return bad("user", "a bad %%-escape")
	}
	if u.Password, err = url.PathUnescape(pass); err != nil {
		return bad("password", "a bad %%-escape") // the error would quote it
	}
	switch {
	case !ok && user == "":
		return bad("user", "empty; leave out the @ for none")
	case ok && u.Password == "":
		return bad("password", "empty; leave out the @ for none")
	}
	for _, r := range u.Username {
		if r < ' ' || r == 0x7f {
			return bad("user", "a control character")
		}
	}
	return nil
}

func (u *URL) hostPort(a string) error {
	host, port := a, ""
	if strings.HasPrefix(a, "[") {
		end := strings.IndexByte(a, ']')
		if end < 0 {
			return bad("host", "%q: an IPv6 address needs its closing ]", clip(a))
		}
		host, port = a[1:end], a[end+1:]
		if net.ParseIP(host) == nil || !strings.Contains(host, ":") {
			return bad("host", "%q is not an IPv6 address", clip(host))
		}
		if port != "" && !strings.HasPrefix(port, ":") {
			return bad("host", "%q after the ]: want :PORT", clip(port))
		}
		port = strings.TrimPrefix(port, ":")
	} else {
		if i := strings.IndexByte(a, ':'); i >= 0 {
			host, port = a[:i], a[i+1:]
		}
		if host == "" {
			return bad("host", "missing: want redis://HOST:PORT")
		}
		if len(host) > 253 {
			return bad("host", "longer than 253 characters")
		}
		for _, r := range host {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' || r == '_') {
				return bad("host", "%q: a host name has letters, digits, '-', '.' and '_' only", clip(host))
			}
		}
	}
	u.Host, u.Port = host, defPort
	if port == "" {
		return nil
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 || port[0] == '+' {
		return bad("port", "want a number from 1 to 65535") // not quoted: it may be a misplaced password
	}
	u.Port = n
	return nil
}

func (u *URL) database(p string) error {
	if p == "" {
		return nil
	}
	n, err := strconv.Atoi(p)
	if err != nil || n < 0 || n >= maxDB || p[0] == '+' || p[0] == '-' {
		return bad("database", "%q: want /N, a database number from 0", clip(p))
	}
	u.DB = n
	return nil
}

// options reads the query: key=NAME, nothing else.
func (u *URL) options(query string) error {
	u.Key = DefaultKey
	if query == "" {
		return nil
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		return bad("query", "%q: not a query string", clip(query))
	}
	for name, vals := range q {
		if name != "key" {
			return bad("query", "unknown option %q: only key=NAME is accepted", clip(name))
		}
		if len(vals) != 1 {
			return bad("key", "given %d times", len(vals))
		}
	}
	k := q.Get("key")
	if err := checkKey(k); err != nil {
		return err
	}
	u.Key = k
	return nil
}

// checkKey keeps a key name plain, so that it never needs quoting in a
// log line and cannot reach into another application's keys by accident.
func checkKey(k string) error {
	if k == "" || len(k) > maxKey {
		return bad("key", "want 1 to %d characters", maxKey)
	}
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.:", r)) {
			return bad("key", "%q: a key name has letters, digits, '-', '_', '.' and ':' only", clip(k))
		}
	}
	return nil
}

// Addr is HOST:PORT.
func (u URL) Addr() string { return net.JoinHostPort(u.Host, strconv.Itoa(u.Port)) }

// String is the URL with its password hidden, for logs.
func (u URL) String() string {
	var b strings.Builder
	b.WriteString("redis")
	if u.TLS {
		b.WriteByte('s')
	}
	b.WriteString("://")
	if u.Password != "" {
		b.WriteString(escapeUser(u.Username))
		b.WriteString(":xxxxx@")
	}
	fmt.Fprintf(&b, "%s/%d", u.Addr(), u.DB)
	if u.Key != DefaultKey {
		b.WriteString("?key=" + u.Key)
	}
	return b.String()
}

// Secret is the URL with its password, as ParseURL reads it back: for
// handing on inside the process (serve.Config.Stage), never for a log.
func (u URL) Secret() string {
	if u.Password == "" {
		return u.String()
	}
	_, rest, _ := strings.Cut(u.String(), "@")
	scheme := "redis://"
	if u.TLS {
		scheme = "rediss://"
	}
	return scheme + escapeUser(u.Username) + ":" + escapeUser(u.Password) + "@" + rest
}

// escapeUser %-escapes all but the unreserved characters, so that a
// user name with ':' or '@' reads back the same.
func escapeUser(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// clip keeps a quoted piece of a bad URL short.
func clip(s string) string {
	const n = 40
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
