package stagelink

import (
	"testing"

	"inflight/stage"
)

// TestBeatRoomChecked: a beat's room counts are refused out of range,
// as its not-yet count is, before any reach the room view.
func TestBeatRoomChecked(t *testing.T) {
	for _, c := range []struct {
		room *stage.RoomCounts
		ok   bool
	}{
		{nil, true},
		{&stage.RoomCounts{Following: 40, Own: 3, Idle: 1}, true},
		{&stage.RoomCounts{Own: -1}, false},
		{&stage.RoomCounts{Idle: maxCount + 1}, false},
	} {
		err := envelope{V: version, Proc: "p", Kind: "beat", Beat: &beatMsg{Room: c.room}}.check()
		if (err == nil) != c.ok {
			t.Errorf("room %+v: err %v, want ok %v", c.room, err, c.ok)
		}
	}
}
