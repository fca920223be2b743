package stagefront

// holds is the holds table and the broker's record of each message, one
// entry per hold, stored in chunks shared between a world and its
// checkpoints and copied on first write: a checkpoint of a 200,000-hold
// sale copies a table of chunk pointers and the few chunks written since.
type holds struct {
	chunks []*chunk
	owner  *token
}

// token identifies the copy allowed to write a chunk in place.
type token struct{ _ byte }

const chunkSize = 1024

type chunk struct {
	owner *token
	items [chunkSize]hold
}

// The message's place in the broker.
const (
	stVisible  uint8 = iota // waiting
	stInFlight              // leased to a consumer
	stAcked                 // deleted
	stDLQ                   // moved to the dead letter queue
)

// hold is one row of the holds table (status) plus its message's broker
// state (receive count, where it is).
type hold struct {
	sold     bool // status = 'sold'
	state    uint8
	receives uint16 // max_receives allows 1,000: a uint8 would wrap
}

func newHolds(n int) holds {
	h := holds{owner: &token{}}
	h.chunks = make([]*chunk, (n+chunkSize-1)/chunkSize)
	for i := range h.chunks {
		h.chunks[i] = &chunk{owner: h.owner}
	}
	return h
}

// clone shares every chunk; both copies copy a chunk before writing it.
// A table that owns no chunk (a checkpoint's) is only read, so that
// goroutines may clone it at once.
func (h *holds) clone() holds {
	c := holds{chunks: append([]*chunk(nil), h.chunks...), owner: &token{}}
	for _, k := range h.chunks {
		if k.owner == h.owner {
			h.owner = &token{}
			break
		}
	}
	return c
}

func (h *holds) at(i int32) hold { return h.chunks[i/chunkSize].items[i%chunkSize] }

func (h *holds) mut(i int32) *hold {
	c := h.chunks[i/chunkSize]
	if c.owner != h.owner {
		d := *c
		d.owner = h.owner
		c = &d
		h.chunks[i/chunkSize] = c
	}
	return &c.items[i%chunkSize]
}
