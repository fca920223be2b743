// Package stage is the workshop's shared state under serve: the stage a
// presenter publishes and followers show, the room's question (the poll)
// and the clock that paces a playing stage on every process. It is plain
// data and locks, with no terminal in it: package tui draws the stage,
// package serve/stagelink carries it between processes.
package stage
