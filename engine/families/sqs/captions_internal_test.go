package sqs

import "testing"

func TestTimesWords(t *testing.T) {
	for n, want := range map[int64]string{1: "once", 2: "twice", 3: "3 times", 40: "40 times"} {
		if got := times(n); got != want {
			t.Errorf("times(%d) = %q, want %q", n, got, want)
		}
	}
}
