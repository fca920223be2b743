package serve

import "inflight/internal/termtext"

// userOf is the user name a client logged in with (a session's, a
// connection's), as the logs carry it: the client chooses it, up to the
// size of an SSH packet, and the logs reach the operator's terminal. The
// logger escapes controls; the guard also bounds the length.
func userOf(c interface{ User() string }) string { return termtext.Clean(c.User(), termtext.Name) }

// clientText is any other string the client chose (its TERM, the command
// it asked for) as a log or a refusal quotes it.
func clientText(s string) string { return termtext.Clean(s, termtext.Quote) }
