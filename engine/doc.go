// Package engine is inflight's deterministic discrete-event simulator: a
// kernel (the clock, the event queue, the trace and its hash, decisions,
// the ground truth per message, alerts, checkpoints and forks) that runs
// one family's system (engine/families/<name>) per incident. The kernel
// knows no family: each brings its steps, its own event and decision
// kinds, its captions, panes and words (see Family).
//
// # Faults
//
// Besides the decisions a run records, each family declares fault points
// (FamilyFaults): places its system could fail, each a potential decision
// whose default is "no fault". An unforced point records nothing and takes
// no decision index, so a run that forces none keeps its trace hash,
// decision count and d-codes. A fork forces one by naming the point, the
// message and the delivery (Fault; ForkOptions.Faults; in a share code the
// fork field ";fault=after_claim:14.1"); Forcing.Observe lists the
// points a run passes, and Explorer.WorldAt starts a branch of one's own
// from the nearest checkpoint.
//
// A family forces a fault one of two ways. Where its lesson already
// decides a crash, a forced fault forces that decision to "crash" (the
// same index, marked forced). Elsewhere the fault is the trace's own event
// (a crash with reason CrashFault plus the point, with no decision). Each
// point's FaultPoint.Doc says what it breaks; a family whose lesson names
// no crash declares none.
package engine
