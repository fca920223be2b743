package engine

import "testing"

// The kernel's kinds keep their numbers (trace hashes hold them) and
// names (JSON traces); the numbers between them are free for families.
func TestKernelKindsKeepTheirNumbers(t *testing.T) {
	want := map[Kind]string{1: "publish", 2: "deliver", 3: "effect", 4: "ack", 5: "ack_refused", 6: "lease_expired",
		7: "dlq", 8: "crash", 9: "restart", 10: "alert", 16: "redrive", 18: "knob", 19: "start"}
	for k := Kind(0); k < FamilyKind; k++ {
		name, ok := want[k]
		if k.Kernel() != ok || ok && k.String() != name || !ok && k.String() != "unknown" {
			t.Errorf("kind %d: kernel %v, %q; want %v, %q", k, k.Kernel(), k.String(), ok, name)
		}
	}
}
