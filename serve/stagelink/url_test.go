package stagelink

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseURL(t *testing.T) {
	ok := []struct {
		in   string
		want URL
		str  string
	}{
		{"redis://10.0.0.5:6380/2?key=hall-b", URL{Host: "10.0.0.5", Port: 6380, DB: 2, Key: "hall-b"}, "redis://10.0.0.5:6380/2?key=hall-b"},
		{"redis://localhost", URL{Host: "localhost", Port: 6379, Key: "inflight"}, "redis://localhost:6379/0"},
		{"redis://h:1/", URL{Host: "h", Port: 1, Key: "inflight"}, "redis://h:1/0"},
		{"REDIS://h:1", URL{Host: "h", Port: 1, Key: "inflight"}, "redis://h:1/0"},
		{"rediss://:pw@redis.example.com:6379/0", URL{TLS: true, Host: "redis.example.com", Port: 6379, Password: "pw", Key: "inflight"}, "rediss://:xxxxx@redis.example.com:6379/0"},
		{"rediss://stage:p%40ss@h:7000/15?key=a.b:c_d", URL{TLS: true, Host: "h", Port: 7000, Username: "stage", Password: "p@ss", DB: 15, Key: "a.b:c_d"}, "rediss://stage:xxxxx@h:7000/15?key=a.b:c_d"},
		{"redis://:a/b?c#d@h:1", URL{Host: "h", Port: 1, Password: "a/b?c#d", Key: "inflight"}, "redis://:xxxxx@h:1/0"},
		{"redis://:x@y@h:1", URL{Host: "h", Port: 1, Password: "x@y", Key: "inflight"}, "redis://:xxxxx@h:1/0"},
		{"redis://[::1]:6379/1", URL{Host: "::1", Port: 6379, DB: 1, Key: "inflight"}, "redis://[::1]:6379/1"},
		{"redis://[::1]", URL{Host: "::1", Port: 6379, Key: "inflight"}, "redis://[::1]:6379/0"},
	}
	for _, c := range ok {
		got, err := ParseURL(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseURL(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
			continue
		}
		if s := got.String(); s != c.str {
			t.Errorf("ParseURL(%q).String() = %q, want %q", c.in, s, c.str)
		}
		if again, err := ParseURL(got.String()); err != nil || again.Addr() != got.Addr() || again.DB != got.DB || again.Key != got.Key {
			t.Errorf("ParseURL(%q) does not read its String back: %+v, %v", c.in, again, err)
		}
	}

	bad := []struct{ in, part, says string }{
		{"", "scheme", "redis://"},
		{"localhost:6379", "scheme", "redis://"},
		{"http://h:1", "scheme", `"http"`},
		{"unix:///tmp/redis.sock", "scheme", `"unix"`},
		{"redis://", "host", "missing"},
		{"redis://:1", "host", "missing"},
		{"redis://h h:1", "host", "host name"},
		{"redis://[::1:1", "host", "]"},
		{"redis://[1.2.3.4]:1", "host", "IPv6"},
		{"redis://[::1]x", "host", ":PORT"},
		{"redis://h:0", "port", "1 to 65535"},
		{"redis://h:65536", "port", "1 to 65535"},
		{"redis://h:+1", "port", "1 to 65535"},
		{"redis://h:x", "port", "1 to 65535"},
		{"redis://h:1/x", "database", `"x"`},
		{"redis://h:1/-1", "database", `"-1"`},
		{"redis://h:1/1/2", "database", `"1/2"`},
		{"redis://h:1/99999999", "database", "database number"},
		{"redis://h:1/0#frag", "url", "fragment"},
		{"redis://h:1/0?key=", "key", "1 to 64"},
		{"redis://h:1/0?key=" + strings.Repeat("k", 65), "key", "1 to 64"},
		{"redis://h:1/0?key=a*b", "key", "letters"},
		{"redis://h:1/0?key=a%20b", "key", "letters"},
		{"redis://h:1/0?key=a&key=b", "key", "2 times"},
		{"redis://h:1/0?skip_verify=true", "query", `"skip_verify"`},
		{"redis://h:1/0?pool_size=9", "query", "only key=NAME"},
		{"redis://h:1/0?key=%zz", "query", "not a query"},
		{"redis://hunter2@h:1", "password", ":PASSWORD@"},
		{"redis://@h:1", "user", "empty"},
		{"redis://user:@h:1", "password", "empty"},
		{"redis://:hunter%zz2@h:1", "password", "%-escape"},
		{"redis://us%zzer:hunter2@h:1", "user", "%-escape"},
		{"redis://" + strings.Repeat("h", 3000), "url", "longer"},
	}
	for _, c := range bad {
		_, err := ParseURL(c.in)
		var ue *URLError
		if !errors.As(err, &ue) || ue.Part != c.part || !strings.Contains(err.Error(), c.says) {
			t.Errorf("ParseURL(%.50q) = %v; want a %s error saying %q", c.in, err, c.part, c.says)
			continue
		}
		if strings.Contains(err.Error(), "hunter") {
			t.Errorf("ParseURL(%q): the error shows the password: %v", c.in, err)
		}
	}
}

// FuzzParseStageURL: any input parses or is refused with a short error
// that never shows the password; what parses is plain and round-trips.
func FuzzParseStageURL(f *testing.F) {
	for _, s := range []string{"redis://h:1/2?key=k", "rediss://u:p@[::1]:6379/0", "redis://:a/b@h", "redis://h:1/0?key=a&key=b",
		"redis://h:1/0#x", "redis://:%zz@h", "x://", "redis://[::1", "redis://h:1/0?key=%41"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := ParseURL(s)
		if err != nil {
			var ue *URLError
			if !errors.As(err, &ue) || len(err.Error()) > 200 {
				t.Fatalf("ParseURL(%q): %v", s, err)
			}
			return
		}
		if u.Port < 1 || u.Port > 65535 || u.DB < 0 || u.DB >= maxDB || u.Host == "" || checkKey(u.Key) != nil {
			t.Fatalf("ParseURL(%q) = %+v: out of bounds", s, u)
		}
		if u.Password != "" && strings.Contains(u.String(), u.Password) && !strings.Contains(u.Password, "xxxxx") &&
			!strings.Contains(u.Addr(), u.Password) && !strings.Contains(u.Username, u.Password) && !strings.Contains(u.Key, u.Password) {
			t.Fatalf("ParseURL(%q).String() = %q shows the password", s, u.String())
		}
		if !utf8.ValidString(u.String()) && utf8.ValidString(s) {
			t.Fatalf("ParseURL(%q).String() = %q is not UTF-8", s, u.String())
		}
		again, err := ParseURL(u.String())
		if err != nil || again.Addr() != u.Addr() || again.DB != u.DB || again.Key != u.Key || again.TLS != u.TLS || again.Username != u.Username {
			t.Fatalf("ParseURL(%q).String() = %q reads back as %+v, %v", s, u.String(), again, err)
		}
	})
}

// The password from the environment: used when the URL has none, refused
// beside one (naming both, quoting neither); Secret reads back whole.
func TestParseURLEnv(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == PasswordEnv {
				return v
			}
			return ""
		}
	}
	var ue *URLError
	u, err := ParseURLEnv("rediss://h:1/2?key=k", env("from/env@x"))
	if err != nil || u.Password != "from/env@x" || u.Username != "" || u.Host != "h" {
		t.Fatalf("the variable's password not taken: %+v, %v", u, err)
	}
	if strings.Contains(u.String(), "from") {
		t.Errorf("String shows the variable's password: %q", u.String())
	}
	if again, err := ParseURL(u.Secret()); err != nil || again != u {
		t.Errorf("Secret %q reads back as %+v, %v; want %+v", u.Secret(), again, err, u)
	}
	// an ACL user in the URL, its password in the variable
	if u, err := ParseURLEnv("rediss://inflight@h:1/0?key=k", env("s3cret")); err != nil || u.Username != "inflight" || u.Password != "s3cret" {
		t.Errorf("a user with the variable's password: %+v, %v", u, err)
	}
	if _, err := ParseURLEnv("rediss://inflight@h:1", env("")); !errors.As(err, &ue) || ue.Part != "password" || !strings.Contains(err.Error(), PasswordEnv) {
		t.Errorf("a user with no password anywhere: %v; want a password error naming %s", err, PasswordEnv)
	}
	if u, err := ParseURLEnv("redis://:inurl@h:1", env("")); err != nil || u.Password != "inurl" {
		t.Errorf("an empty variable changed the URL's password: %+v, %v", u, err)
	}
	_, err = ParseURLEnv("redis://:hunter2@h:1", env("hunter3"))
	if !errors.As(err, &ue) || ue.Part != "password" || !strings.Contains(err.Error(), PasswordEnv) ||
		!strings.Contains(err.Error(), "URL") || strings.Contains(err.Error(), "hunter") {
		t.Errorf("a password in both places: %v; want a password error naming the URL and %s, quoting neither", err, PasswordEnv)
	}
	if _, err := ParseURLEnv("redis://h:0", env("hunter3")); !errors.As(err, &ue) || ue.Part != "port" {
		t.Errorf("a bad URL with the variable set: %v; want the URL's error", err)
	}
	for _, s := range []string{"redis://u%3Ax:p%40%2F%25ss@[::1]:7/3?key=a", "redis://:%C3%A9t%C3%A9@h", "rediss://h:1/0"} {
		u, err := ParseURL(s)
		if err != nil {
			t.Fatal(err)
		}
		if again, err := ParseURL(u.Secret()); err != nil || again != u {
			t.Errorf("ParseURL(%q).Secret() = %q reads back as %+v, %v", s, u.Secret(), again, err)
		}
	}
}
