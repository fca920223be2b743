//go:build race

package serve

// raceSlowdown scales the attack test's latency bounds, and divides the
// load tests' sessions and cycles: the race detector makes every
// instruction several times slower, and finds a race among ten sessions
// as well as among fifty.
const raceSlowdown = 5
