package engine

// Revived is how many dispatches the settled-state guard had to start: a
// wake some move forgot. The liveness tests assert it stays 0.
func Revived(w *World) int { return w.revived }
