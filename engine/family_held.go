package engine

// HeldWithoutEffect counts the messages the world (or a family's system)
// still holds that have had no effect yet (States counts every state in
// O(1); this is for tests that want the unworked share). It scans from the
// oldest held message, so it costs the span of messages still in play.
func (w *World) HeldWithoutEffect() int {
	n := 0
	for i := w.advanceOldest(); i < w.msgs.n; i++ {
		if m, ok := w.msgs.at(i); ok && m.Held() && m.Effects == 0 {
			n++
		}
	}
	return n
}
