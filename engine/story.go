package engine

// Story is every event on branch b from position from on that touched
// message id: the events that name it, and each redrive that moved it back
// out of the dead letter queue. A redrive names no message (its event
// counts them), so the story tells which ones it moved from the message's
// own state: a redrive takes every dead letter, so it moved this one when
// the message went to the DLQ after the previous redrive, if any. Reading it
// changes nothing: the trace and its hash are the run's as they were.
//
// It reads as History does, chunk by chunk, until the message has been
// quiet for a while; a message waiting in the DLQ of an incident with an
// operator who redrives is not over, so the reading goes on (up to
// History's cap) for the redrive that may come.
func (x *Explorer) Story(b *Branch, id int32, from int64) []Entry {
	var out []Entry
	redrives := false
	for _, op := range x.Spec.Operators {
		redrives = redrives || op.Action == ActionRepairRedrive
	}
	inDLQ := false
	name := x.w.MsgName(id)
	x.readLife(b, from, func() bool { return inDLQ && redrives }, func(e *Entry) bool {
		switch {
		case e.Event.Msg == id:
			// only a redrive takes a letter out: a superseded worker's
			// late ack or email leaves it in
			inDLQ = inDLQ || e.Event.Kind == EvDLQ
		case inDLQ && e.Event.Kind == EvRedrive:
			inDLQ = false
			e.Caption += " (" + name + " among them)"
		default:
			return false
		}
		out = append(out, *e)
		return true
	})
	return out
}
