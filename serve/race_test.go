//go:build race

package serve

// raceSlowdown scales the attack test's latency bounds: the race detector
// makes every instruction several times slower.
const raceSlowdown = 5
