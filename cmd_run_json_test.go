package main

import (
	"encoding/json"
	"testing"
)

// runJSON runs `inflight run ARGS --format json`, failing the test unless
// it exits 0, and returns the output read into a T and as printed (a
// replay by code must print the same).
func runJSON[T any](t testing.TB, args ...string) (T, string) {
	t.Helper()
	var v T
	out, errOut, code := runCLI(append(append([]string{"run"}, args...), "--format", "json")...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errOut)
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return v, out
}
