package engine

// Revived is how many dispatches the settled-state guard had to start: a
// wake some move forgot. The liveness tests assert it stays 0.
func Revived(w *World) int { return w.revived }

// Leaves counts the message table's live leaves, all its leaves and the
// dead letters kept.
func Leaves(w *World) (live, total, dlq int) {
	for _, l := range w.truth.msgs.leaves {
		if l != nil {
			live++
		}
	}
	return live, len(w.truth.msgs.leaves), w.truth.dlq.n
}
