package stagelink

import (
	"testing"
	"time"
)

func TestClockOffset(t *testing.T) {
	t0 := time.UnixMilli(1_000_000)
	cases := []struct {
		rtt, ahead time.Duration
	}{{0, 0}, {10 * time.Millisecond, 0}, {10 * time.Millisecond, time.Second}, {4 * time.Millisecond, -250 * time.Millisecond}}
	for _, c := range cases {
		at := t0.Add(c.rtt / 2).Add(c.ahead) // read halfway through the round trip
		if got := clockOffset(t0, t0.Add(c.rtt), at); got != c.ahead {
			t.Errorf("round trip %s, Redis %s ahead: offset %s", c.rtt, c.ahead, got)
		}
	}
}
