package main

import (
	"errors"
	"runtime/debug"

	"github.com/spf13/pflag"

	"inflight/engine"
	"inflight/tui"
)

// budgetFlags are the explorer's budget: how long a branch may run and how
// much memory its checkpoints may take.
type budgetFlags struct {
	events int64
	mb     int64
}

func (f *budgetFlags) add(fs *pflag.FlagSet) {
	fs.Int64Var(&f.events, "max-events", tui.DefaultMaxEvents, "events a branch may run to; a fork or code past it is refused")
	fs.Int64Var(&f.mb, "max-memory-mb", tui.DefaultMaxMemory>>20, "memory (MB) the explorer's checkpoints may take")
}

// budget checks the flags and returns the budget they name.
func (f *budgetFlags) budget() (engine.Limits, error) {
	if f.events < 1 {
		return engine.Limits{}, usageErr("--max-events must be at least 1, not %d", f.events)
	}
	if f.mb < 1 || f.mb > 1<<30 {
		return engine.Limits{}, usageErr("--max-memory-mb must be between 1 and %d, not %d", 1<<30, f.mb)
	}
	b := tui.DefaultBudget()
	b.Events, b.Bytes = f.events, f.mb<<20
	return b, nil
}

// DefaultHeadlessMemoryMB is the memory a headless command's work may take
// unless --max-memory-mb says otherwise: a run's world (the million-order
// thursday holds about 30 MB), a hunt's checkpoints, lines and frontier.
const DefaultHeadlessMemoryMB = 1024

// memoryFlag is --max-memory-mb of run, sweep and hunt.
type memoryFlag struct{ mb int64 }

func (f *memoryFlag) add(fs *pflag.FlagSet, what string) {
	fs.Int64Var(&f.mb, "max-memory-mb", DefaultHeadlessMemoryMB, "memory (MB) "+what+" may take; past it the work stops with a line saying so")
}

// bytes checks the flag and returns the budget it names.
func (f *memoryFlag) bytes() (int64, error) {
	if f.mb < 1 || f.mb > 1<<30 {
		return 0, usageErr("--max-memory-mb must be between 1 and %d, not %d", 1<<30, f.mb)
	}
	return f.mb << 20, nil
}

// backstop tells the Go runtime the memory budget, so that its garbage
// collector works to keep the heap near it instead of letting garbage
// double it. It decides nothing: the accounting, from the state's known
// sizes, stops the work; this only keeps RSS near what was accounted.
// The returned func restores the limit before (commands run in-process
// in tests).
func backstop(bytes int64) (restore func()) {
	prev := debug.SetMemoryLimit(bytes + 64<<20) // the binary, stacks, buffers
	return func() { debug.SetMemoryLimit(prev) }
}

// budgetStop is a budget's refusal or stop as the command's failure: one
// line, exit 1.
func budgetStop(err error) error {
	var be *engine.BudgetError
	if errors.As(err, &be) {
		return &exitError{code: 1, msg: be.Error()}
	}
	return err
}
