package galewatch

import (
	"testing"

	"inflight/engine/families/familytest"
)

// TestEveryRunEnds: with every answer lost a turbine used to re-send each
// reading for ever; it now stops re-sending retry_deadline after taking
// the reading (10 minutes by default: the first write and ten re-sends).
// Every write lands, so the readings it gives up on are stored all the
// same — done, not lost; only the stepped clock's three are lost. A fork
// that lowers the deadline stops the re-sends already queued when they
// fall due.
func TestEveryRunEnds(t *testing.T) {
	figs := []string{"rows", "timeouts", "retries", "retries_rejected", "gave_up", "collisions"}
	for _, tc := range []struct {
		name string
		set  []string
		fork familytest.Fork
		want string
	}{
		{"write_timeout_p=1", []string{"write_timeout_p", "1"}, familytest.Fork{},
			"messages 372000 deliveries 4092000 effects 371997 duplicates 0 end 10:19:59.998 | held 0 done 371997 dlq 0 lost 3 | rows 371997 timeouts 4092000 retries 3720000 retries_rejected 3720000 gave_up 372000 collisions 3"},
		{"write_timeout_p=1, retry_deadline=0s", []string{"write_timeout_p", "1", "retry_deadline", "0s"}, familytest.Fork{},
			"messages 372000 deliveries 372000 effects 371997 duplicates 0 end 10:09:59.998 | held 0 done 371997 dlq 0 lost 3 | rows 371997 timeouts 372000 retries 0 retries_rejected 0 gave_up 372000 collisions 3"},
		{"write_timeout_p=1, retry_deadline=2m30s", []string{"write_timeout_p", "1", "retry_deadline", "2m30s"}, familytest.Fork{},
			"messages 372000 deliveries 1116000 effects 371997 duplicates 0 end 10:11:59.998 | held 0 done 371997 dlq 0 lost 3 | rows 371997 timeouts 1116000 retries 744000 retries_rejected 744000 gave_up 372000 collisions 3"},
		{"write_timeout_p=0.5, retry_deadline=3m", []string{"write_timeout_p", "0.5", "retry_deadline", "3m"}, familytest.Fork{},
			"messages 372000 deliveries 698054 effects 371997 duplicates 0 end 10:12:59.979 | held 0 done 371997 dlq 0 lost 3 | rows 371997 timeouts 349343 retries 326054 retries_rejected 326054 gave_up 23289 collisions 3"},
		{"at 10:09 write_timeout_p=1, retry_deadline=1m", nil, familytest.Fork{At: "10:09:00", Set: familytest.Set("write_timeout_p", "1", "retry_deadline", "1m")},
			"messages 372000 deliveries 409521 effects 371997 duplicates 0 end 10:10:59.998 | held 0 done 371997 dlq 0 lost 3 | rows 371997 timeouts 74752 retries 37521 retries_rejected 37521 gave_up 37231 collisions 3"},
		{"write_timeout_p=1, at 10:03 retry_deadline=30s", []string{"write_timeout_p", "1"}, familytest.Fork{At: "10:03:00", Set: familytest.Set("retry_deadline", "30s")},
			"messages 372000 deliveries 483600 effects 371997 duplicates 0 end 10:09:59.998 | held 0 done 371997 dlq 0 lost 3 | rows 371997 timeouts 483600 retries 111600 retries_rejected 111600 gave_up 372000 collisions 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := familytest.Play(t, testSpec(), 1, familytest.Set(tc.set...), tc.fork, 20_000_000)
			if got := familytest.Line(r, figs...); got != tc.want {
				t.Errorf("\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestCloneWithEveryAnswerLost: a checkpoint in the middle of a run whose
// re-send queue holds hundreds of thousands of readings (and has dropped
// its served front) carries the whole queue.
func TestCloneWithEveryAnswerLost(t *testing.T) {
	familytest.CloneMidRun(t, testSpec(), 1, familytest.Set("write_timeout_p", "1", "retry_deadline", "3m"), "10:04:00.5",
		"rows", "timeouts", "retries", "gave_up")
}
