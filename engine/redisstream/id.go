package redisstream

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ID is a stream entry id, "<ms>-<seq>", both parts unsigned 64-bit.
// See https://redis.io/docs/latest/develop/data-types/streams/#entry-ids
type ID struct {
	Ms, Seq uint64
}

// MinID and MaxID are what Redis reads for "-" and "+".
var (
	MinID = ID{0, 0}
	MaxID = ID{math.MaxUint64, math.MaxUint64}
)

func (id ID) String() string {
	return strconv.FormatUint(id.Ms, 10) + "-" + strconv.FormatUint(id.Seq, 10)
}

// Compare returns -1, 0 or +1 as id is before, equal to or after o.
func (id ID) Compare(o ID) int {
	switch {
	case id.Ms < o.Ms:
		return -1
	case id.Ms > o.Ms:
		return 1
	case id.Seq < o.Seq:
		return -1
	case id.Seq > o.Seq:
		return 1
	}
	return 0
}

// Less reports whether id sorts before o.
func (id ID) Less(o ID) bool { return id.Compare(o) < 0 }

// IsZero reports whether id is 0-0.
func (id ID) IsZero() bool { return id == ID{} }

// Next is the smallest id after id. Like Redis's streamIncrID, the id after
// MaxID wraps to 0-0 and ok is false.
func (id ID) Next() (next ID, ok bool) {
	switch {
	case id.Seq != math.MaxUint64:
		return ID{id.Ms, id.Seq + 1}, true
	case id.Ms != math.MaxUint64:
		return ID{id.Ms + 1, 0}, true
	}
	return ID{}, false
}

// Prev is the largest id before id; ok is false for 0-0 (streamDecrID).
func (id ID) Prev() (prev ID, ok bool) {
	switch {
	case id.Seq != 0:
		return ID{id.Ms, id.Seq - 1}, true
	case id.Ms != 0:
		return ID{id.Ms - 1, math.MaxUint64}, true
	}
	return MaxID, false
}

// errInvalidID is Redis's reply to an id it cannot parse.
var errInvalidID = &Error{Kind: "ERR", Msg: "ERR Invalid stream ID specified as stream command argument"}

// parseID follows Redis's streamGenericParseIDOrReply: "<ms>" alone takes
// missingSeq as its sequence; "-" and "+" are MinID and MaxID unless strict.
// When seqGiven is not nil, "<ms>-*" is accepted and *seqGiven tells whether
// the sequence was given.
func parseID(s string, missingSeq uint64, strict bool, seqGiven *bool) (ID, error) {
	if seqGiven != nil {
		*seqGiven = true
	}
	if len(s) > 127 {
		return ID{}, errInvalidID
	}
	switch s {
	case "-", "+":
		if strict {
			return ID{}, errInvalidID
		}
		if s == "-" {
			return MinID, nil
		}
		return MaxID, nil
	}
	msPart, seqPart, hasSeq := strings.Cut(s, "-")
	ms, err := parseUint(msPart)
	if err != nil {
		return ID{}, errInvalidID
	}
	seq := missingSeq
	if hasSeq {
		if seqGiven != nil && seqPart == "*" {
			seq, *seqGiven = 0, false
		} else if seq, err = parseUint(seqPart); err != nil {
			return ID{}, errInvalidID
		}
	}
	return ID{ms, seq}, nil
}

func parseUint(s string) (uint64, error) {
	if s == "" {
		return 0, fmt.Errorf("empty")
	}
	return strconv.ParseUint(s, 10, 64)
}

// ParseID parses an explicit id as the commands taking a single id do
// (XACK, XCLAIM, XDEL, XREADGROUP): "<ms>-<seq>" or "<ms>" (sequence 0);
// "-" and "+" are refused.
func ParseID(s string) (ID, error) { return parseID(s, 0, true, nil) }

// MustID is ParseID for literals in code and tests; it panics on a bad id.
func MustID(s string) ID {
	id, err := ParseID(s)
	if err != nil {
		panic(fmt.Sprintf("redisstream: bad id %q", s))
	}
	return id
}

// RangeStart parses the start of a range as XRANGE, XPENDING and
// XAUTOCLAIM do: "-" is MinID, "<ms>" means <ms>-0 and a leading "(" makes
// the bound exclusive (the id after it).
func RangeStart(s string) (ID, error) {
	if len(s) > 1 && s[0] == '(' {
		id, err := parseID(s[1:], 0, true, nil)
		if err != nil {
			return ID{}, err
		}
		next, ok := id.Next()
		if !ok {
			return ID{}, &Error{Kind: "ERR", Msg: "ERR invalid start ID for the interval"}
		}
		return next, nil
	}
	return parseID(s, 0, false, nil)
}

// RangeEnd parses the end of a range: "+" is MaxID, "<ms>" means
// <ms>-18446744073709551615 and a leading "(" makes the bound exclusive.
func RangeEnd(s string) (ID, error) {
	if len(s) > 1 && s[0] == '(' {
		id, err := parseID(s[1:], math.MaxUint64, true, nil)
		if err != nil {
			return ID{}, err
		}
		prev, ok := id.Prev()
		if !ok {
			return ID{}, &Error{Kind: "ERR", Msg: "ERR invalid end ID for the interval"}
		}
		return prev, nil
	}
	return parseID(s, math.MaxUint64, false, nil)
}

// Error is an error reply as Redis sends it. Msg is the whole text after
// the RESP "-" (so it starts with Kind), e.g.
// "NOGROUP No such key 'k' or consumer group 'g'".
type Error struct {
	Kind string // first word: "ERR", "NOGROUP", "BUSYGROUP"
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// IsNoGroup reports whether err is a NOGROUP error reply.
func IsNoGroup(err error) bool {
	e, ok := err.(*Error)
	return ok && e.Kind == "NOGROUP"
}
