package kafkarestart

import "inflight/engine"

// FaultAfterEmail is the consumer's fault point, the lesson's crash after
// the email and before the offset commit (email_crash): the record's
// crash decision, which forcing the fault forces to "crash". Its delivery
// is the consumer instance (1 for the first mailer, 2 after a restart).
const FaultAfterEmail = 0

var faultPoints = []engine.FaultPoint{
	FaultAfterEmail: {Name: "after_email", Words: "%s dies after the email, before committing the offset",
		Doc: "the email has left, the offset is not committed: the restarted consumer resumes from the last committed offset and emails the record again"},
}

// FaultPoints lists the consumer's fault point.
func (f *Family) FaultPoints() []engine.FaultPoint { return faultPoints }

// FaultActor: the consumer instance a fault strikes is its delivery
// number, so the words name no instance of their own.
func (f *Family) FaultActor(*engine.World, int) string { return "the consumer" }
