package tui

import (
	"io"
	"reflect"
	"sync"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"inflight/engine"
	"inflight/stage"
)

// colours is what a terminal's frame depends on besides its size.
type colours struct {
	profile termenv.Profile
	dark    bool
}

// coloursOf is a session renderer's colours.
func coloursOf(r *lipgloss.Renderer) colours {
	return colours{profile: r.ColorProfile(), dark: r.HasDarkBackground()}
}

// maxStageFrames bounds the frames kept for one moment of the stage: more
// sizes than a room's terminals have, each at most MaxFrameBytes.
const maxStageFrames = 128

type frameKey struct {
	w, h   int
	c      colours
	scroll int // a follower's own scroll of the screen (follow_scroll.go)
}

// drawn is a frame and, for one drawn before its chart was ready, when;
// for one drawn while a screen's job runs, the job's end.
type drawn struct {
	v       string
	draft   time.Time       // zero: final
	opening <-chan struct{} // closed when the screen's job has ended; nil none
}

// fresh reports whether d may be shared still.
func (d drawn) fresh() bool {
	if d.opening != nil {
		select {
		case <-d.opening:
			return false // the screen can be drawn open now
		default:
		}
	}
	return d.draft.IsZero() || time.Since(d.draft) < draftWait/2
}

// frames draws the stage for followers: one mirror (a Model rebuilt from
// the stage's state, with an explorer of its own) per colour profile, and
// each frame once per generation, moment, size and colours, shared by
// every follower with those. Followers hold no engine work while they
// follow.
type frames struct {
	mu      sync.Mutex
	gen     uint64 // the generation the frames are of
	at      int64  // and the stage time of their moment (0: not clocked)
	byKey   map[frameKey]drawn
	prev    map[frameKey]drawn // the moment's before, drawn while a screen opens
	mirrors map[colours]*mirror
	news    linkNews // what the followers were told of the hall's link (stage_news.go)
}

// mirror is the stage drawn in one set of colours.
type mirror struct {
	m     Model
	ok    bool
	lines []string     // the branches its explorer holds
	scr   stage.Screen // the screen open on it
	gen   uint64       // the generation it shows
	at    int64        // the stage time of the moment it shows
	code  string
}

// frame is the stage drawn at w×h in colours c, at the beat of the
// stage's clock now (Unix ms), the generation it shows and the beat it
// was drawn at (a later one for a follower late for its beat); "" and 0
// while nothing is on stage. sh pays for the mirror's explorer. A frame
// drawn while the whole-run chart is still being computed is a draft: it
// is shared for half of draftWait only, and its followers ask again after
// draftWait. While a screen's job (a life story, a comparison) runs, the
// frame is the one drawn before at this size, else the moment without the
// screen, never a progress bar; opening is closed when the job has ended,
// and the next frame shows the screen. Nothing here waits for a job: the
// followers' wait commands (follow.go) call it off the update loop, and
// copyExplorer, in a follower's Update, only starts the job.
func (s *Stage) frame(w, h int, c colours, sh *Shared, now int64) (v string, gen uint64, beat int64, final bool, opening <-chan struct{}) {
	return s.scrolledFrame(w, h, c, sh, now, 0)
}

// scrolledFrame is frame for a follower that scrolled the stage's screen
// by scroll lines of its own (follow_scroll.go).
func (s *Stage) scrolledFrame(w, h int, c colours, sh *Shared, now int64, scroll int) (v string, gen uint64, beat int64, final bool, opening <-chan struct{}) {
	st, gen := s.State()
	if gen == 0 || w <= 0 || h <= 0 {
		return "", gen, now, true, nil
	}
	at, _ := st.ClockTime(now)
	f := &s.frames
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.byKey == nil || f.gen != gen || at > f.at {
		if len(f.byKey) > 0 {
			f.prev = f.byKey
		}
		f.byKey, f.gen, f.at = map[frameKey]drawn{}, gen, at
	}
	at = f.at // a follower late for its beat takes the newer one: the mirror never goes back
	beat = now
	if st.Running() {
		beat = at
	}
	k := frameKey{w, h, c, scroll}
	if d, ok := f.byKey[k]; ok && d.fresh() {
		return d.v, gen, beat, d.draft.IsZero(), d.opening
	}
	mr := f.mirror(c)
	if err := mr.sync(st, gen, at, c, sh, &f.news); err != nil {
		return "", gen, beat, true, nil
	}
	opening = mr.settle()
	// what Update does with a size, without copying the Model
	mr.m.SetSize(w, h)
	mr.m.termW, mr.m.termH = w, h // a follower's drawn size, within the cap
	mr.m.help.Width = w
	mr.m.snap.readPanes(mr.m.x, mr.m.at, mr.m.sel, false)
	sizeScreens(&mr.m)
	d := drawn{opening: opening}
	if p, ok := f.prev[k]; ok && opening != nil {
		d.v = p.v // nothing new until the screen is open
	} else {
		d.v = mr.scrolledView(scroll)
	}
	final = mr.m.charts.filling() == nil // no chart, or one filled in
	if !final {
		d.draft = time.Now()
	}
	if len(f.byKey) >= maxStageFrames {
		// a follower resizing on and on while the stage stands still: any
		// one goes, it is drawn again if its follower asks
		for old := range f.byKey {
			delete(f.byKey, old)
			break
		}
	}
	f.byKey[k] = d
	return d.v, gen, beat, final, opening
}

func (f *frames) mirror(c colours) *mirror {
	if f.mirrors == nil {
		f.mirrors = map[colours]*mirror{}
	}
	mr := f.mirrors[c]
	if mr == nil {
		mr = &mirror{}
		f.mirrors[c] = mr
	}
	return mr
}

// copyExplorer is a copy of the stage's explorer at its current
// generation and the moment it shows at stage time now (the follower's
// last frame's), for a follower who takes the moment as their own, with
// the state it shows, its code that moment's; nil while nothing is on
// stage or it cannot be built. The copy's memory is charged to sh's pool:
// the follower releases it. It runs in the follower's Update: a screen
// the mirror opens meanwhile only starts its job (the copy is of the
// moment, which the job does not move), but bringing an unsynced mirror
// to the stage (a rebuild, a seek) is engine work done here, under f.mu.
func (s *Stage) copyExplorer(c colours, sh *Shared, now int64) (*engine.Explorer, stage.State) {
	st, gen := s.State()
	if gen == 0 {
		return nil, st
	}
	at, _ := st.ClockTime(now)
	f := &s.frames
	f.mu.Lock()
	defer f.mu.Unlock()
	mr := f.mirror(c)
	if err := mr.sync(st, gen, at, c, sh, &f.news); err != nil {
		return nil, st
	}
	x := mr.m.x.Clone()
	if sh.Pool != nil {
		sh.Pool.Release(-x.Bytes()) // now held twice: charge the copy
	}
	st.Code = mr.m.shareCode()
	return x, st
}

// sync brings the mirror to the state at stage time at: the same
// branches (rebuilt when they differ), cursor, clock, selection, play
// state and screen, and the stage's news (news, shared by the mirrors).
func (mr *mirror) sync(st stage.State, gen uint64, at int64, c colours, sh *Shared, news *linkNews) error {
	if mr.ok && mr.gen == gen && mr.at == at {
		return nil
	}
	// a screen is opened again when it or the moment changes; a scroll
	// only scrolls it
	was, now := mr.scr, st.Screen
	was.Off, now.Off = 0, 0
	reopen := !reflect.DeepEqual(was, now) || mr.code != st.Code
	if !mr.ok || !reflect.DeepEqual(mr.lines, st.Branches) {
		x, err := restoreExplorer(st, sh)
		if err != nil {
			return err
		}
		mr.release()
		r := lipgloss.NewRenderer(io.Discard)
		r.SetColorProfile(c.profile)
		r.SetHasDarkBackground(c.dark)
		m := newModel(x, r, Options{}, sh)
		m.follower.on = true // its header says FOLLOWING
		mr.m, mr.ok, mr.lines, reopen = m, true, st.Branches, true
	}
	if err := mr.m.showStage(st, reopen, at); err != nil {
		return err
	}
	if st.Away || st.Clock != nil && st.Clock.Until != 0 {
		mr.m.play.on = false // stopped where it was: the header must not say it plays
	}
	mr.m.flash = news.flash(st, gen, at, mr.m.at)
	mr.m.shownBeat = st.Beat // the room reads the plan's beat (plan.go)
	mr.gen, mr.at, mr.scr, mr.code = gen, at, st.Screen, st.Code
	return nil
}

// settle finishes the screen's job the mirror's last sync started, if it
// has ended, without waiting for it: the screen opens, scrolled as the
// stage has it now. While it runs, settle returns its end.
func (mr *mirror) settle() (opening <-chan struct{}) {
	j := mr.m.jobs.cur
	if j == nil {
		return nil
	}
	select {
	case <-j.done:
	default:
		return j.done
	}
	flash := mr.m.flash // the stage's news, not the job's
	mr.m.finishJob(j)
	scrollStaged(&mr.m, mr.scr)
	mr.m.flash = flash
	return nil
}

func (mr *mirror) release() {
	if mr.ok {
		mr.m.Release()
		mr.ok = false
	}
}

func (f *frames) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, mr := range f.mirrors {
		mr.release()
	}
	f.mirrors, f.byKey, f.prev = nil, nil, nil
}
