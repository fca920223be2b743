package redisstream

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestCashbackIncidentShape runs the lesson's cashback consumer on the
// model: 5,000 "credit 100" events, a consumer that reads with XREADGROUP
// >, credits, commits, and crashes 1% of the time before XACK; on restart
// it first re-reads its own pending entries with XREADGROUP ... 0. Without
// deduplication every crash credits one event twice; with it the balance
// is exact. It also shows how the simulator drives the model.
func TestCashbackIncidentShape(t *testing.T) {
	for _, dedupe := range []bool{false, true} {
		s := New("cashback")
		if err := s.XGroupCreate("wallet", "0"); err != nil {
			t.Fatal(err)
		}
		now := int64(1_700_000_000_000)
		for i := 0; i < 5000; i++ {
			if _, err := s.XAdd("*", []Field{{"user", "u1"}, {"amount", "100"}}, now); err != nil {
				t.Fatal(err)
			}
		}
		r := rand.New(rand.NewPCG(7, 7))
		balance, crashes := 0, 0
		processed := map[ID]bool{}
		restarting := false
		for {
			now += 5
			id := ">"
			if restarting {
				id = "0" // own pending entries first
			}
			batch, err := s.XReadGroup("wallet", "consumer-1", 10, id, now)
			if err != nil {
				t.Fatal(err)
			}
			if restarting && len(batch) == 0 {
				restarting = false
				continue
			}
			if batch == nil {
				break // nothing new: done
			}
			restarting = false
			for _, e := range batch {
				if !dedupe || !processed[e.ID] {
					amount, _ := strconv.Atoi(e.Fields[1].Value)
					balance += amount
					processed[e.ID] = true // committed with the credit
				}
				if r.Float64() < 0.01 {
					crashes++
					restarting = true
					break // crash after commit, before XACK
				}
				if s.XAck("wallet", e.ID) != 1 {
					t.Fatalf("XACK %v", e.ID)
				}
			}
		}
		want := 500000
		if !dedupe {
			want += 100 * crashes
		}
		sum, _ := s.XPending("wallet")
		t.Logf("dedupe=%v: crashes=%d expected balance=500000 actual=%d", dedupe, crashes, balance)
		if balance != want || crashes == 0 || sum.Count != 0 {
			t.Fatalf("dedupe=%v: balance %d, want %d (crashes %d, pending %d)", dedupe, balance, want, crashes, sum.Count)
		}
	}
}
