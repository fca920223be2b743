package stage

import (
	"strings"
	"sync"
	"time"
)

// Share codes a presenter could have on stage: the stage refuses a
// received state whose code does not parse.
const (
	codeA = "thursday@1#1.00000000"
	codeB = "thursday@1#2.00000000"
)

// hostileText is a clipboard write, a window title, a screen clear and
// 50,000 right-to-left overrides.
var hostileText = "\x1b]52;c;ZXZpbA==\x07\x1b]0;pwned\x07\x1b[2J" + strings.Repeat("\u202e", 50_000)

// clock is a test's clock: it moves only when the test moves it.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.UnixMilli(1_700_000_000_000)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func (c *clock) ms() int64 { return c.Now().UnixMilli() }

func closedNow(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
