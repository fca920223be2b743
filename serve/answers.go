package serve

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/charmbracelet/log"

	"inflight/stage"
)

// maxKeptReveals bounds the reveals waiting to be written to the answers
// file: a disk that stalls costs at most this many lines (each dropped
// one logged), never a presenter's keystroke.
const maxKeptReveals = 64

// answers keeps the room's reveals: one log line each and, with
// --answers FILE, one JSON line each appended to the file by a goroutine
// of its own, so that a slow disk never blocks the presenter's session.
type answers struct {
	log  *log.Logger
	f    *os.File // nil: the log only
	path string
	q    chan stage.Revealed
	done chan struct{}

	mu      sync.Mutex
	failed  bool // a write failed: said once
	dropped int  // lines dropped since the last said
}

// openAnswers opens (creating, appending) the answers file, if one is
// named; an error names the flag and the file.
func openAnswers(path string, l *log.Logger) (*answers, error) {
	a := &answers{log: l, path: path}
	if path == "" {
		return a, nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("--answers: %w", err)
	}
	a.f, a.q, a.done = f, make(chan stage.Revealed, maxKeptReveals), make(chan struct{})
	go a.write()
	return a, nil
}

// keep is the poll's Keep: it logs the reveal and queues its line.
func (a *answers) keep(r stage.Revealed) {
	counts := make([]string, len(r.Counts))
	for i, n := range r.Counts {
		counts[i] = fmt.Sprintf("%c=%d", 'a'+rune(i), n)
	}
	a.log.Info("reveal", "incident", r.Incident, "question", r.Key, "answer", string(rune('a'+r.Answer)),
		"counts", strings.Join(counts, " "), "answered", r.Answered, "attendees", r.Attendees, "offline", r.Offline)
	if a.q == nil {
		return
	}
	select {
	case a.q <- r:
	default:
		a.mu.Lock()
		a.dropped++
		n := a.dropped
		a.mu.Unlock()
		a.log.Warn("answers file is behind: a reveal not written to it", "file", a.path, "dropped", n)
	}
}

// write appends each queued reveal as a JSON line until close.
func (a *answers) write() {
	defer close(a.done)
	for r := range a.q {
		b, err := json.Marshal(r)
		if err == nil {
			_, err = a.f.Write(append(b, '\n'))
		}
		if err != nil {
			a.mu.Lock()
			first := !a.failed
			a.failed = true
			a.mu.Unlock()
			if first { // once: a full disk would say it on every reveal
				a.log.Error("answers file: cannot write; reveals are still logged here", "file", a.path, "err", err)
			}
		}
	}
}

// close writes what is queued and closes the file.
func (a *answers) close() {
	if a.q == nil {
		return
	}
	close(a.q)
	<-a.done
	if err := a.f.Close(); err != nil {
		a.log.Error("answers file: closing", "file", a.path, "err", err)
	}
	a.q = nil
}
