package kafka

// Isolation is isolation.level [ISO].
type Isolation int

const (
	// ReadUncommitted reads up to the high watermark, aborted and open
	// transactions' records included. It is the Java client's default.
	ReadUncommitted Isolation = iota
	// ReadCommitted reads only up to the last stable offset and skips
	// records of aborted transactions.
	ReadCommitted
)

// OffsetReset is auto.offset.reset: where a consumer starts in a partition
// its group has no committed offset for [GROUP].
type OffsetReset int

const (
	// ResetLatest starts at the log end offset (Kafka's default): records
	// written before the consumer got the partition are never read. That
	// includes records in a newly added partition written before the group
	// noticed it.
	ResetLatest OffsetReset = iota
	// ResetEarliest starts at the beginning of the log.
	ResetEarliest
)

// ConsumerConfig is a consumer's settings. Zero numeric fields take
// Kafka's defaults; AutoCommit is off unless set, unlike Java's
// enable.auto.commit=true, so a scenario states its commit policy.
type ConsumerConfig struct {
	Group              string
	MemberID           string // unique within the group; orders the range assignment
	Topics             []string
	Isolation          Isolation
	AutoOffsetReset    OffsetReset
	MaxPollRecords     int
	MaxPollInterval    int64
	AutoCommit         bool
	AutoCommitInterval int64
}

// ConsumerRecord is one record returned by Poll.
type ConsumerRecord struct {
	TP         TP
	Offset     int64
	Record     Record
	ProducerID int64
	Time       int64
}

type position struct {
	TP     TP
	Offset int64
}

// Consumer is one consumer instance's client state: its group membership
// as last seen, its assignment and its fetch positions. Positions are
// client memory: a crash loses them, and the next owner starts from the
// committed offset.
type Consumer struct {
	cfg        ConsumerConfig
	generation int
	assigned   []TP
	positions  []position // one per assigned partition that has one
	rotate     int
	lastCommit int64
}

// NewConsumer joins the group (a rebalance) and returns the client.
func NewConsumer(c *Cluster, now int64, cfg ConsumerConfig) *Consumer {
	if cfg.MaxPollRecords <= 0 {
		cfg.MaxPollRecords = DefaultMaxPollRecords
	}
	if cfg.MaxPollInterval <= 0 {
		cfg.MaxPollInterval = DefaultMaxPollInterval
	}
	if cfg.AutoCommitInterval <= 0 {
		cfg.AutoCommitInterval = DefaultAutoCommitInterval
	}
	cfg.Topics = append([]string(nil), cfg.Topics...)
	co := &Consumer{cfg: cfg, lastCommit: now}
	co.join(c, now)
	return co
}

func (co *Consumer) join(c *Cluster, now int64) {
	c.join(co.cfg.Group, member{
		ID: co.cfg.MemberID, Topics: append([]string(nil), co.cfg.Topics...),
		LastPoll: now, MaxPollInterval: co.cfg.MaxPollInterval,
	})
}

// Clone returns a deep copy of the client state.
func (co *Consumer) Clone() *Consumer {
	n := *co
	n.cfg.Topics = append([]string(nil), co.cfg.Topics...)
	n.assigned = append([]TP(nil), co.assigned...)
	n.positions = append([]position(nil), co.positions...)
	return &n
}

// Config returns the consumer's settings with defaults filled in.
func (co *Consumer) Config() ConsumerConfig { return co.cfg }

// Assignment returns the partitions the consumer believes it owns (as of
// its last Poll).
func (co *Consumer) Assignment() []TP { return append([]TP(nil), co.assigned...) }

// Position returns the next offset the consumer will fetch from tp.
func (co *Consumer) Position(tp TP) (int64, bool) {
	for _, p := range co.positions {
		if p.TP == tp {
			return p.Offset, true
		}
	}
	return 0, false
}

func (co *Consumer) setPosition(tp TP, off int64) {
	for i := range co.positions {
		if co.positions[i].TP == tp {
			co.positions[i].Offset = off
			return
		}
	}
	co.positions = append(co.positions, position{tp, off})
}

// Poll is poll(): it first takes part in any rebalance, then fetches up to
// max.poll.records records from its partitions, one partition after
// another starting from a rotating one.
//
//   - A consumer the coordinator removed (poll timeout) rejoins as the Java
//     client does on its next poll.
//   - While a rebalance is held behind a silent member (Cluster.Silence),
//     nobody fetches: the joiner has no partitions yet, and the members
//     that rejoined gave theirs up.
//   - With auto-commit, positions are committed before a rebalance is
//     joined (onJoinPrepare) and whenever auto.commit.interval.ms passed:
//     what earlier polls returned counts as processed.
//   - On a new generation every position is dropped (eager protocol) and
//     each assigned partition resumes at the group's committed offset, or
//     at auto.offset.reset without one. So records processed but not
//     committed are delivered again — to whichever member owns the
//     partition now [GROUP].
//   - read_committed stops at the last stable offset and skips aborted
//     transactions' records; markers are never returned [ISO].
func (co *Consumer) Poll(c *Cluster, now int64) []ConsumerRecord {
	g := c.groupFor(co.cfg.Group)
	if g.joining(co.cfg.MemberID) {
		return nil // its JoinGroup is held: no partitions yet
	}
	m := g.member(co.cfg.MemberID)
	if co.cfg.AutoCommit && m != nil &&
		(co.generation != g.Generation || now-co.lastCommit >= co.cfg.AutoCommitInterval) {
		co.commitPositions(c, now)
	}
	if m == nil {
		co.join(c, now)
		if m = g.member(co.cfg.MemberID); m == nil {
			return nil // held behind a silent member
		}
	}
	m.LastPoll = now
	if len(g.Joining) > 0 {
		// a rebalance is held: this member has rejoined and, eagerly,
		// given up its partitions; it fetches again once it completes
		co.generation, co.assigned, co.positions = -1, nil, nil
		return nil
	}
	if co.generation != g.Generation {
		co.generation = g.Generation
		co.assigned = append([]TP(nil), m.Assigned...)
		co.positions = nil
		co.rotate = 0
	}
	for _, tp := range co.assigned {
		if _, ok := co.Position(tp); ok {
			continue
		}
		off, ok := g.Committed[tp]
		if !ok {
			off = 0
			if co.cfg.AutoOffsetReset == ResetLatest {
				off = c.LogEndOffset(tp)
			}
		}
		co.setPosition(tp, off)
	}
	var out []ConsumerRecord
	n := len(co.assigned)
	for k := 0; k < n && len(out) < co.cfg.MaxPollRecords; k++ {
		tp := co.assigned[(co.rotate+k)%n]
		out = co.fetch(c, tp, out)
	}
	if n > 0 {
		co.rotate = (co.rotate + 1) % n
	}
	return out
}

// fetch appends records of tp from the consumer's position until the
// fetch limit or max.poll.records, advancing the position past everything
// it skipped or returned.
func (co *Consumer) fetch(c *Cluster, tp TP, out []ConsumerRecord) []ConsumerRecord {
	p, err := c.partition(tp)
	if err != nil {
		return out
	}
	limit := p.leo()
	if co.cfg.Isolation == ReadCommitted {
		limit = p.lso()
	}
	pos, _ := co.Position(tp)
	for ; pos < limit && len(out) < co.cfg.MaxPollRecords; pos++ {
		e := &p.Log[pos]
		if e.Control != Data || (co.cfg.Isolation == ReadCommitted && p.aborted(e)) {
			continue
		}
		out = append(out, ConsumerRecord{TP: tp, Offset: e.Offset, Record: e.Record, ProducerID: e.ProducerID, Time: e.Time})
	}
	co.setPosition(tp, pos)
	return out
}

// Commit is commitSync(): the current positions of the assigned
// partitions become the group's committed offsets. A consumer removed from
// the group gets ErrCommitFailed. A member that has not yet noticed a
// rebalance may still commit: Kafka's coordinator waits for it to rejoin.
func (co *Consumer) Commit(c *Cluster, now int64) error {
	return co.commitPositions(c, now)
}

func (co *Consumer) commitPositions(c *Cluster, now int64) error {
	var offs []Offset
	for _, tp := range co.assigned {
		if off, ok := co.Position(tp); ok {
			offs = append(offs, Offset{tp, off})
		}
	}
	co.lastCommit = now
	return c.commitOffsets(co.cfg.Group, co.cfg.MemberID, now, offs)
}

// CommitOffsets is commitSync(offsets): commit exactly these positions,
// e.g. the offset after the last record actually processed.
func (co *Consumer) CommitOffsets(c *Cluster, now int64, offsets ...Offset) error {
	co.lastCommit = now
	return c.commitOffsets(co.cfg.Group, co.cfg.MemberID, now, offsets)
}

// Close is close(): with auto-commit it commits first, then it leaves the
// group, which rebalances at once.
func (co *Consumer) Close(c *Cluster, now int64) {
	if co.cfg.AutoCommit {
		co.commitPositions(c, now)
	}
	c.LeaveGroup(co.cfg.Group, co.cfg.MemberID)
}

// NextOffsets returns, for records just processed, the offsets to commit
// after them (last offset + 1 per partition, in first-seen order): what
// SendOffsetsToTransaction or CommitOffsets want.
func NextOffsets(recs []ConsumerRecord) []Offset {
	var out []Offset
	for _, r := range recs {
		found := false
		for i := range out {
			if out[i].TP == r.TP {
				out[i].Offset, found = r.Offset+1, true
			}
		}
		if !found {
			out = append(out, Offset{r.TP, r.Offset + 1})
		}
	}
	return out
}
