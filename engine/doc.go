// Package engine is inflight's deterministic discrete-event simulator: a
// kernel (the clock, the event queue, the trace and its hash, decisions,
// the ground truth per message, alerts, checkpoints and forks) that runs
// one family's system (engine/families/<name>) per incident.
//
// # Faults
//
// Besides the decisions a run records, each family declares fault points
// (FamilyFaults): places its system could fail, each a potential decision
// whose default is "no fault". An unforced point records nothing and takes
// no decision index, so a run that forces none keeps its trace hash,
// decision count and d-codes. A fork forces one by naming the point, the
// message and the delivery (Fault; ForkOptions.Faults; in a share code the
// fork field ";fault=after_claim:14.1"); World.ObserveFaults lists the
// points a run passes, and Explorer.WorldAt starts a branch of one's own
// from the nearest checkpoint. The points:
//
// The SQS-like queue (sqs), a worker crash at each step of the handler,
// and a lost ack. A forced crash is the trace's crash event (reason
// CrashFault plus the point), with no decision; the worker restarts after
// restart_after, and the message comes back when its lease expires.
//
//	after_receive  the handler's first step, before any work (and before
//	               ack=before's ack)
//	after_claim    claim handler: the claim row written, nothing sent
//	after_effect   the email has left, the call is in flight: no stamp, no
//	               ack, so the next delivery that sends is a duplicate
//	after_stamp    claim handler: sent_at stamped, the ack not sent
//	before_ack     the work done, the ack about to go: after the provider
//	               answers (no claim), or when a claim handler finds
//	               sent_at stamped
//	ack_lost       an ack after the work never reaches the broker: the
//	               trace's ack event says so (AckLost), nothing is deleted
//
// Families that already decide a crash where their lesson names one: a
// forced fault forces that decision to "crash" (the same index, marked
// forced).
//
//	cashback     after_commit    after the wallet COMMIT, before XACK
//	             between_writes  dedupe=separate: after SADD, before
//	                             the wallet COMMIT
//	stagefront   after_commit    the seat's update committed, before the ack
//	kafka-restart after_email    the email sent, before the offset commit
//	                             (its "delivery" is the consumer instance)
//
// db-down, fifo-window, galewatch and ordering declare none: their lessons
// name no crash (a database outage, a deduplication window, a clock step,
// partition order).
package engine
