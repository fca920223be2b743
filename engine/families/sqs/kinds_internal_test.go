package sqs

import "testing"

// The queue's kinds keep the numbers and names they had as the kernel's:
// trace hashes hold the numbers, JSON traces the names. None may be one
// the kernel uses.
func TestKindsKeepTheirNumbers(t *testing.T) {
	want := map[string]int{"claim": 11, "defer": 12, "stamp": 13, "renew": 14, "wedge": 17, "answer": 20, "purge": 64, "stop": 65, "script_off": 66}
	if len(kindNames) != len(want) {
		t.Fatalf("%d kinds, want %d", len(kindNames), len(want))
	}
	q := &Family{}
	for k, n := range kindNames {
		if want[n] != int(k) || q.KindName(k) != n {
			t.Errorf("kind %d is %q (%q), want %q at %d", k, n, q.KindName(k), n, want[n])
		}
		if k.Kernel() {
			t.Errorf("kind %d (%s) is the kernel's too", k, n)
		}
	}
}
