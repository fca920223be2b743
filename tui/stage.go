package tui

import "inflight/stage"

// Stage is the workshop's stage as this package draws it: the stage
// itself (package stage: the state, the room's question, the clock) and
// the followers' frames, drawn once per state, size and colours and
// shared by every follower (stage_frames.go). The SSH server makes one
// per server and hands it to every session.
type Stage struct {
	*stage.Stage
	frames frames
}

// NewStage returns an empty stage on the real clock.
func NewStage() *Stage { return &Stage{Stage: stage.New()} }

// Close gives back the memory the followers' frames hold.
func (s *Stage) Close() { s.frames.close() }
