package serve

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/charmbracelet/ssh"
	gossh "golang.org/x/crypto/ssh"

	"inflight/serve/stagelink"
	"inflight/tui"
)

// An attendee who reconnects with the same public key within the grace
// period (Config.KeepFor, serve --keep-for) gets their explorer back: the
// branch tree, the cursor's moment, the open screen (tui.Work). When a
// session ends its work is kept in this process's memory and, in a hall,
// in the stage's Redis, so that a reconnect that lands on another process
// finds it too; the session that reconnects takes it.
//
// An attendee is their public key and login name (ssh HOST logs in as
// the local user, ssh follow@HOST as follow): follow@ and a plain login of
// one key keep their work apart.
//
// One attendee, two sessions at once: when a new session finds one
// already open, the server asks the old connection for a keepalive
// reply. None within aliveWait is a dropped connection the server had
// not noticed (no FIN from a client whose wifi went): the old session is
// closed and its work comes to the new one. A reply is a second terminal
// on purpose (or a key several people share): both stay, the new one
// starts fresh, and whichever ends last leaves its work for the next.

// DefaultKeepFor is how long a session's work waits for its key.
const DefaultKeepFor = 5 * time.Minute

// MaxKeepFor bounds --keep-for: a kept work is for a reconnect, not a
// save game.
const MaxKeepFor = 24 * time.Hour

// maxKeptBytes bounds one key's kept work, in memory and in Redis: a
// couple of hundred branches (each a few hundred bytes); a tree past it
// keeps its first branches and the attendee is told.
const maxKeptBytes = 64 << 10

// keptHeader is a kept record's first line; the number is the format's.
const keptHeader = "inflight kept 1"

// aliveWait is how long an open session's connection has to answer a
// keepalive before a new session of its attendee takes it over; handOver
// bounds the wait for the closed session to keep its work.
const (
	aliveWait = 3 * time.Second
	handOver  = 5 * time.Second
)

// keyID is the name an attendee's work is kept under: a hash of their
// key's wire form and login name, never the key.
func keyID(k ssh.PublicKey, user string) string {
	h := sha256.New()
	h.Write(k.Marshal())
	h.Write([]byte{0})
	h.Write([]byte(user))
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// kept is one key's work in memory: its record and when it was written.
type kept struct {
	record []byte
	saved  time.Time
}

// keptStore is the works this process keeps, by key id: at most maxKeys
// (the oldest goes), each for the grace period.
type keptStore struct {
	grace   time.Duration
	maxKeys int

	mu    sync.Mutex
	now   func() time.Time // tests' clock drives the grace period
	byKey map[string]kept
	timer *time.Timer // sweeps the expired
	done  bool
	put1  chan struct{} // closed at the next put (tests wait on it)
}

func newKeptStore(grace time.Duration, maxKeys int) *keptStore {
	return &keptStore{grace: grace, maxKeys: maxKeys, now: time.Now, byKey: map[string]kept{}}
}

// clock is the store's now.
func (k *keptStore) clock() time.Time {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.now()
}

// setClock swaps the clock (tests).
func (k *keptStore) setClock(now func() time.Time) {
	k.mu.Lock()
	k.now = now
	k.mu.Unlock()
}

// put keeps id's record, evicting the oldest key past the cap.
func (k *keptStore) put(id string, record []byte, saved time.Time) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.done {
		return
	}
	k.sweepLocked()
	if _, ok := k.byKey[id]; !ok && len(k.byKey) >= k.maxKeys {
		oldest := ""
		for kid, e := range k.byKey {
			if oldest == "" || e.saved.Before(k.byKey[oldest].saved) || e.saved.Equal(k.byKey[oldest].saved) && kid < oldest {
				oldest = kid
			}
		}
		delete(k.byKey, oldest)
	}
	k.byKey[id] = kept{record: record, saved: saved}
	k.scheduleLocked()
	if k.put1 != nil {
		close(k.put1)
		k.put1 = nil
	}
}

// putting is closed at the next put.
func (k *keptStore) putting() <-chan struct{} {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.put1 == nil {
		k.put1 = make(chan struct{})
	}
	return k.put1
}

// has says whether id's work is kept (tests).
func (k *keptStore) has(id string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.sweepLocked()
	_, ok := k.byKey[id]
	return ok
}

// take removes and returns id's record, if one is still within the
// grace period.
func (k *keptStore) take(id string) ([]byte, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.sweepLocked()
	e, ok := k.byKey[id]
	delete(k.byKey, id)
	return e.record, ok
}

// len is how many keys are kept (tests).
func (k *keptStore) len() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.sweepLocked()
	return len(k.byKey)
}

// sweepLocked frees what the grace period is over for.
func (k *keptStore) sweepLocked() {
	now := k.now()
	for id, e := range k.byKey {
		if now.Sub(e.saved) >= k.grace {
			delete(k.byKey, id)
		}
	}
}

// scheduleLocked sets the sweep for the first expiry: a kept work is
// freed when its grace period ends, reconnect or not.
func (k *keptStore) scheduleLocked() {
	if k.timer != nil {
		k.timer.Stop()
		k.timer = nil
	}
	if len(k.byKey) == 0 || k.done {
		return
	}
	first := time.Duration(-1)
	now := k.now()
	for _, e := range k.byKey {
		if left := k.grace - now.Sub(e.saved); first < 0 || left < first {
			first = left
		}
	}
	k.timer = time.AfterFunc(max(first, time.Millisecond), func() {
		k.mu.Lock()
		defer k.mu.Unlock()
		k.sweepLocked()
		k.scheduleLocked()
	})
}

// close frees everything and stops the sweep.
func (k *keptStore) close() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.done = true
	k.byKey = map[string]kept{}
	if k.timer != nil {
		k.timer.Stop()
	}
}

// formatKept is a key's record: the header, the key id it belongs to,
// when it was written, then the work.
func formatKept(id string, saved time.Time, w tui.Work) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\nkey %s\nsaved %d\n", keptHeader, id, saved.UnixMilli())
	b.Write(w.Format())
	return b.Bytes()
}

// parseKept reads a record kept for id, strictly, as a share code is
// read: bounded, of this key and no other, written within the grace
// period before now (a minute of clocks apart allowed), its work as
// tui.ParseWork takes it.
func parseKept(data []byte, id string, now time.Time, grace time.Duration) (tui.Work, time.Time, error) {
	fail := func(format string, a ...any) (tui.Work, time.Time, error) {
		return tui.Work{}, time.Time{}, fmt.Errorf(format, a...)
	}
	if len(data) > maxKeptBytes {
		return fail("%d bytes; a kept work has at most %d", len(data), maxKeptBytes)
	}
	head, rest, _ := bytes.Cut(data, []byte("\n"))
	if string(head) != keptHeader {
		return fail("line 1: want %q", keptHeader)
	}
	line, rest, _ := bytes.Cut(rest, []byte("\n"))
	if string(line) != "key "+id {
		return fail("line 2: not this key's") // the line is not quoted: it may be anything
	}
	line, rest, _ = bytes.Cut(rest, []byte("\n"))
	ms, ok := bytes.CutPrefix(line, []byte("saved "))
	n, err := strconv.ParseInt(string(ms), 10, 64)
	if !ok || err != nil || n <= 0 || n > 1<<53 {
		return fail("line 3: want \"saved UNIX-MS\"")
	}
	saved := time.UnixMilli(n)
	switch age := now.Sub(saved); {
	case age >= grace:
		return fail("written %s ago, past the grace period of %s", age.Round(time.Second), grace)
	case age < -time.Minute:
		return fail("written %s from now", (-age).Round(time.Second))
	}
	w, err := tui.ParseWork(rest)
	if err != nil {
		return fail("%w", err)
	}
	return w, saved, nil
}

// keeps says whether a's work is kept when its session ends: not a
// presenter's (the stage is its to resume), not with --keep-for 0.
func (s *Server) keeps(a *attendee) bool { return s.kept != nil && a.kid != "" }

// takeOver closes the session of a's key and login already open, if its
// connection no longer answers, and waits (bounded) for it to keep its
// work, which a then takes.
func (s *Server) takeOver(a *attendee) {
	if !s.keeps(a) {
		return
	}
	s.mu.Lock()
	var old *attendee
	for o := range s.sessions {
		if o != a && o.kid == a.kid && (old == nil || o.id > old.id) {
			old = o
		}
	}
	s.mu.Unlock()
	if old == nil {
		return
	}
	conn, ok := old.sess.Context().Value(ssh.ContextKeyConn).(gossh.Conn)
	if !ok || stillThere(conn, aliveWait) {
		s.log.Info("the key has a live session: this one starts fresh, the last to end leaves its work", "id", a.id, "other", old.id, "key", a.fingerprint)
		return
	}
	s.log.Info("taking over a dropped connection", "id", a.id, "from", old.id, "key", a.fingerprint)
	old.kick(endReplaced)
	conn.Close() // writes to it would hang: its program ends on the error
	t := time.NewTimer(handOver)
	defer t.Stop()
	select {
	case <-old.retired:
	case <-t.C:
		s.log.Warn("the session taken over did not end; starting fresh", "id", a.id, "from", old.id)
	}
}

// stillThere says whether conn answers a keepalive within d: any reply,
// a refusal included, is a client still there.
func stillThere(conn gossh.Conn, d time.Duration) bool {
	got := make(chan struct{}, 1)
	go func() {
		if _, _, err := conn.SendRequest("keepalive@openssh.com", true, nil); err == nil {
			got <- struct{}{}
		}
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-got:
		return true
	case <-t.C:
		return false
	}
}

// takeWork finds a's kept work, in memory and, in a hall, in Redis (both
// are taken; the newer wins), and validates it. A record that does not
// read is refused with a log line: a's session starts fresh.
func (s *Server) takeWork(a *attendee) *tui.Work {
	if !s.keeps(a) {
		return nil
	}
	now := s.kept.clock()
	var best *tui.Work
	var bestAt time.Time
	from := ""
	try := func(where string, data []byte) {
		w, saved, err := parseKept(data, a.kid, now, s.cfg.KeepFor)
		if err != nil {
			s.log.Warn("refused kept work", "id", a.id, "key", a.fingerprint, "from", where, "err", err)
			return
		}
		if best == nil || saved.After(bestAt) {
			best, bestAt, from = &w, saved, where
		}
	}
	if data, ok := s.kept.take(a.kid); ok {
		try("memory", data)
	}
	if s.stageLink != nil {
		data, err := s.stageLink.TakeKept(a.kid, maxKeptBytes)
		switch {
		case errors.Is(err, stagelink.ErrOffline):
		case err != nil:
			s.log.Warn("refused kept work", "id", a.id, "key", a.fingerprint, "from", "redis", "err", err)
		case data != nil:
			try("redis", data)
		}
	}
	if best != nil {
		s.log.Info("restoring", "id", a.id, "key", a.fingerprint, "from", from, "branches", best.Branches(), "dropped", best.Dropped)
	}
	return best
}

// keepWork keeps what a's explorer holds, once its program has ended: in
// memory, and in the hall's Redis for a reconnect that lands elsewhere.
func (s *Server) keepWork(a *attendee) {
	a.mu.Lock()
	m, r := a.model, a.reason
	a.mu.Unlock()
	if !s.keeps(a) || m == nil || r == endCrash || r == endError {
		return // after a crash the explorer is not trusted to be whole
	}
	w, ok := tui.WorkOf(m, maxKeptBytes-256) // room for the record's lines
	if !ok {
		return
	}
	saved := s.kept.clock()
	rec := formatKept(a.kid, saved, w)
	if len(rec) > maxKeptBytes {
		return // not expected: WorkOf kept to the cap
	}
	s.kept.put(a.kid, rec, saved)
	where := "memory"
	if s.stageLink != nil {
		if err := s.stageLink.PutKept(a.kid, rec, s.cfg.KeepFor); err != nil {
			s.log.Warn("kept work not written to the stage's Redis: a reconnect to another process starts fresh", "id", a.id, "err", err)
		} else {
			where = "memory+redis"
		}
	}
	s.log.Info("kept", "id", a.id, "key", a.fingerprint, "branches", w.Branches(), "dropped", w.Dropped,
		"bytes", len(rec), "in", where, "for", s.cfg.KeepFor)
}

// fingerprintOf is a session key's fingerprint for the log.
func fingerprintOf(k ssh.PublicKey) string {
	if k == nil {
		return "none"
	}
	return gossh.FingerprintSHA256(k)
}
