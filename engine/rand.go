package engine

// Randomness is counter-based: a draw is a hash of (seed, stream, key...),
// never the next value of a shared generator. So each kind of decision is
// its own stream, and a knob that changes how many draws one part of the
// model makes cannot shift the values another part sees: order 14's first
// provider call takes the same time whether the timeout is 30 s or 60 s.

// Stream names one kind of decision.
type Stream uint64

// The streams. Their values are part of the trace format: changing one
// changes golden hashes.
const (
	StreamLatency Stream = 0x6c6174656e6379 // "latency"
	StreamWorker  Stream = 0x776f726b6572   // "worker"
	StreamCrash   Stream = 0x6372617368     // "crash"
	StreamWedge   Stream = 0x7765646765     // "wedge"
)

// mix is splitmix64's finaliser: a bijection with good avalanche, so
// adjacent keys give unrelated outputs.
func mix(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// draw returns 64 random bits for (seed, stream, a, b).
func draw(seed uint64, s Stream, a, b uint64) uint64 {
	return mix(mix(mix(seed^uint64(s))^a) ^ b)
}

// uniform maps a draw to [lo, hi] inclusive, in whole milliseconds.
func uniform(x uint64, lo, hi int64) int64 {
	if hi <= lo {
		return lo
	}
	span := uint64(hi - lo + 1)
	return lo + int64(x%span)
}

// chance is true with probability p (a fraction in [0,1]).
func chance(x uint64, p float64) bool {
	if p <= 0 {
		return false
	}
	// 53 bits give an exact float in [0,1).
	return float64(x>>11)/(1<<53) < p
}
