//go:build !race

package serve

const raceSlowdown = 1
