package engine

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Mode is the broker's delivery discipline.
type Mode uint8

// The broker modes.
const (
	ModeStandard Mode = iota // SQS standard: any visible message to any idle worker
	ModeOrdered              // one FIFO message group: only the head can be in flight
)

// AckPlace is where the handler acknowledges: the whole guarantee.
type AckPlace uint8

// The two places an ack can go.
const (
	AckAfter  AckPlace = iota // at-least-once
	AckBefore                 // at-most-once
)

// Params are the knobs: every value a user can change with --set, from the
// start or from a fork onward. Plain data, copied into every checkpoint.
type Params struct {
	Orders            int
	Mode              Mode
	VisibilityTimeout Duration
	MaxReceives       int
	LateAckAccept     bool
	Ack               AckPlace
	Claim             bool     // the sent_at claim handler (thursday-fixed)
	ClaimWindow       Duration // a claim younger than this is "in flight"
	CrashAfterClaim   Duration // featured order's first worker dies this long after its claim; 0 = off
	Heartbeat         Duration // renew the lease this often while handling; 0 = off
	WedgeP            float64  // chance a provider call never returns
	LatencyMin        Duration
	LatencyMax        Duration
	RestartAfter      Duration // supervisor's delay before a dead worker is back

	// Knobs of the other incident families (see Family). Each family's
	// Descriptor lists the ones it reads, with their defaults; an incident
	// lists them in Spec.Knobs.
	Events          int      // cashback: stream entries
	CrashP          float64  // cashback, stagefront: chance of a crash after commit, before the ack
	Dedupe          int      // cashback: 0 false, 1 true (same transaction), 2 separate store
	WriteTimeoutP   float64  // galewatch: chance a write's answer is lost
	ClockStep       Duration // galewatch: a turbine's clock steps by this at 10:05 (may be negative)
	ZeroRowsFail    bool     // stagefront: the consumer treats zero rows as failure
	DedupWindow     Duration // fifo-window: the broker's deduplication interval
	RetryDeadline   Duration // fifo-window: the producer gives up retrying after this
	TransactionalID string   // kafka-restart: empty for none
	Batch           int      // kafka-restart: records in the re-sent batch
	EmailCrash      bool     // kafka-restart: the consumer crashes before its offset commit
	KeyNone         bool     // ordering: unkeyed producer instead of key=order_id
	ConsumerThreads int      // ordering: threads inside one consumer
	Repartition     int      // ordering: partitions after the mid-run increase (0: none)
	RetryToTail     bool     // ordering: failed events go to the back of the line
	Versions        bool     // ordering: ignore events older than the applied version
	Breaker         bool     // db-down: a circuit breaker pauses consumption
}

// Knob describes one --set key.
type Knob struct {
	Name    string
	Help    string
	Type    KnobType
	Choices []string // for enumerations and booleans
	get     func(*Params) string
	set     func(*Params, string) error
}

// Get formats the knob's current value in p.
func (k *Knob) Get(p *Params) string { return k.get(p) }

// Set parses v into p, checking this knob's value alone (not how it sits
// with others, as Apply does).
func (k *Knob) Set(p *Params, v string) error { return k.set(p, v) }

func durKnob(name, help string, f func(*Params) *Duration, allowZero bool) *Knob {
	return durKnobSigned(name, help, f, allowZero, false)
}

func durKnobSigned(name, help string, f func(*Params) *Duration, allowZero, allowNeg bool) *Knob {
	return &Knob{Name: name, Help: help, Type: KnobDuration,
		get: func(p *Params) string { return FormatDuration(*f(p)) },
		set: func(p *Params, s string) error {
			d, err := ParseDuration(s, allowNeg)
			if err != nil {
				return err
			}
			if d == 0 && !allowZero {
				return fmt.Errorf("must be more than 0s")
			}
			*f(p) = d
			return nil
		}}
}

func intKnob(name, help string, f func(*Params) *int, lo, hi int) *Knob {
	return &Knob{Name: name, Help: help, Type: KnobInt,
		get: func(p *Params) string { return strconv.Itoa(*f(p)) },
		set: func(p *Params, s string) error {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil {
				return fmt.Errorf("%q is not a whole number", clip(s))
			}
			if n < lo || n > hi {
				return fmt.Errorf("%d is outside %d…%d", n, lo, hi)
			}
			*f(p) = n
			return nil
		}}
}

func enumKnob(name, help string, choices []string, get func(*Params) int, set func(*Params, int)) *Knob {
	return &Knob{Name: name, Help: help, Type: KnobChoice, Choices: choices,
		get: func(p *Params) string { return choices[get(p)] },
		set: func(p *Params, s string) error {
			for i, c := range choices {
				if strings.TrimSpace(s) == c {
					set(p, i)
					return nil
				}
			}
			return fmt.Errorf("%q is not one of %s", clip(s), strings.Join(choices, ", "))
		}}
}

func boolIdx(b bool) int {
	if b {
		return 1
	}
	return 0
}

// knobs is built once; it is read-only, so sessions may share it.
var knobs = []*Knob{
	intKnob("orders", "messages the main source publishes (same spacing)", func(p *Params) *int { return &p.Orders }, 0, 50_000_000),
	enumKnob("mode", "standard queue, or one strictly ordered FIFO group", []string{"standard", "ordered"},
		func(p *Params) int { return int(p.Mode) }, func(p *Params, i int) { p.Mode = Mode(i) }),
	durKnob("visibility_timeout", "the broker's lease on a delivered message", func(p *Params) *Duration { return &p.VisibilityTimeout }, false),
	intKnob("max_receives", "deliveries before the broker moves a message to the DLQ", func(p *Params) *int { return &p.MaxReceives }, 1, 1000),
	enumKnob("late_ack", "what the broker does with an ack quoting an expired lease", []string{"refuse", "accept"},
		func(p *Params) int { return boolIdx(p.LateAckAccept) }, func(p *Params, i int) { p.LateAckAccept = i == 1 }),
	enumKnob("ack", "where the handler acks: after the work or before it", []string{"after", "before"},
		func(p *Params) int { return int(p.Ack) }, func(p *Params, i int) { p.Ack = AckPlace(i) }),
	enumKnob("claim", "check a sent_at claims table before sending", []string{"false", "true"},
		func(p *Params) int { return boolIdx(p.Claim) }, func(p *Params, i int) { p.Claim = i == 1 }),
	durKnob("claim_window", "a claim younger than this is taken to be in flight", func(p *Params) *Duration { return &p.ClaimWindow }, false),
	durKnob("crash_after_claim", "the featured order's first worker dies this long after its claim (0s: never)", func(p *Params) *Duration { return &p.CrashAfterClaim }, true),
	durKnob("heartbeat", "renew the lease this often while the handler runs (0s: never)", func(p *Params) *Duration { return &p.Heartbeat }, true),
	probKnob("wedge_p", "chance that a provider call never returns", func(p *Params) *float64 { return &p.WedgeP }),
	durKnob("latency_min", "the provider's fastest answer", func(p *Params) *Duration { return &p.LatencyMin }, true),
	durKnob("latency_max", "the provider's slowest answer", func(p *Params) *Duration { return &p.LatencyMax }, true),
	durKnob("restart_after", "the supervisor's delay before a dead worker is back", func(p *Params) *Duration { return &p.RestartAfter }, true),

	intKnob("events", "stream entries the producer writes", func(p *Params) *int { return &p.Events }, 0, 10_000_000),
	probKnob("crash_p", "chance the consumer dies after its commit and before its ack", func(p *Params) *float64 { return &p.CrashP }),
	enumKnob("dedupe", "a processed-ids table: none, in the same transaction, or in a separate store", []string{"false", "true", "separate"},
		func(p *Params) int { return p.Dedupe }, func(p *Params, i int) { p.Dedupe = i }),
	probKnob("write_timeout_p", "chance a write lands but its answer is lost", func(p *Params) *float64 { return &p.WriteTimeoutP }),
	durKnobSigned("clock_step", "a daemon steps one turbine's clock by this at 10:05 (0s: never)", func(p *Params) *Duration { return &p.ClockStep }, true, true),
	enumKnob("zero_rows", "what the consumer makes of an update that matched no rows", []string{"success", "failure"},
		func(p *Params) int { return boolIdx(p.ZeroRowsFail) }, func(p *Params, i int) { p.ZeroRowsFail = i == 1 }),
	durKnob("dedup_window", "the broker's deduplication interval", func(p *Params) *Duration { return &p.DedupWindow }, true),
	durKnob("retry_deadline", "the producer stops retrying after this", func(p *Params) *Duration { return &p.RetryDeadline }, true),
	{Name: "transactional_id", Help: "the producer's transactional.id (empty: none)", Type: KnobText,
		get: func(p *Params) string { return p.TransactionalID },
		set: func(p *Params, s string) error {
			// a whitelist, not a blacklist: the id is shown on screen
			// and written into share codes
			if len(s) > 64 || strings.IndexFunc(s, func(r rune) bool {
				return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_')
			}) >= 0 {
				return fmt.Errorf("%q: use letters, digits, '-' and '_' (at most 64)", clip(s))
			}
			p.TransactionalID = s
			return nil
		}},
	intKnob("batch", "records in the batch the restarted producer sends again", func(p *Params) *int { return &p.Batch }, 1, 1_000_000),
	enumKnob("email_crash", "the consumer crashes after its email and before committing its offset", []string{"false", "true"},
		func(p *Params) int { return boolIdx(p.EmailCrash) }, func(p *Params, i int) { p.EmailCrash = i == 1 }),
	enumKnob("key", "the producer's message key", []string{"order_id", "none"},
		func(p *Params) int { return boolIdx(p.KeyNone) }, func(p *Params, i int) { p.KeyNone = i == 1 }),
	intKnob("consumer_threads", "threads handling records inside one consumer", func(p *Params) *int { return &p.ConsumerThreads }, 1, 64),
	intKnob("repartition", "partitions after the mid-run increase (0: no increase)", func(p *Params) *int { return &p.Repartition }, 0, 1024),
	enumKnob("retry", "where a failed event is retried", []string{"in_place", "to_tail"},
		func(p *Params) int { return boolIdx(p.RetryToTail) }, func(p *Params, i int) { p.RetryToTail = i == 1 }),
	enumKnob("versions", "ignore events older than the version already applied", []string{"false", "true"},
		func(p *Params) int { return boolIdx(p.Versions) }, func(p *Params, i int) { p.Versions = i == 1 }),
	enumKnob("breaker", "a circuit breaker pauses consumption while the database is down", []string{"false", "true"},
		func(p *Params) int { return boolIdx(p.Breaker) }, func(p *Params, i int) { p.Breaker = i == 1 }),
}

func probKnob(name, help string, f func(*Params) *float64) *Knob {
	return &Knob{Name: name, Help: help, Type: KnobProbability,
		get: func(p *Params) string { return strconv.FormatFloat(*f(p), 'g', -1, 64) },
		set: func(p *Params, s string) error {
			// NaN passes every comparison's "else": refuse it by name
			v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil || math.IsNaN(v) || v < 0 || v > 1 {
				return fmt.Errorf("%q is not a probability between 0 and 1", clip(s))
			}
			*f(p) = v
			return nil
		}}
}

// QueueKnobs are the knobs of the SQS-like queue incidents.
var QueueKnobs = []string{"orders", "mode", "visibility_timeout", "max_receives", "late_ack", "ack", "claim", "claim_window",
	"crash_after_claim", "heartbeat", "wedge_p", "latency_min", "latency_max", "restart_after"}

// KnobsFor lists the knobs an incident reads, sorted. Spec.Knobs comes
// from a family's descriptor, checked when the registry is (see
// Descriptor.Check), so an unknown name there is a bug: it panics rather
// than drop the name.
func KnobsFor(spec *Spec) []*Knob {
	names := spec.Knobs
	if len(names) == 0 {
		names = QueueKnobs
	}
	out, err := KnobsNamed(names)
	if err != nil {
		panic(fmt.Sprintf("incident %s: %v", spec.ID, err))
	}
	return out
}

// KnobsNamed finds the named knobs, sorted by name; a name no knob has is
// an error.
func KnobsNamed(names []string) ([]*Knob, error) {
	var out []*Knob
	for _, n := range names {
		k, ok := LookupKnob(n)
		if !ok {
			return nil, fmt.Errorf("unknown knob %q (knobs: %s)", clip(n), strings.Join(KnobNames(), ", "))
		}
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// KnobScopeError is a setting for a knob the incident does not read.
type KnobScopeError struct{ Err error }

func (e *KnobScopeError) Error() string { return e.Err.Error() }
func (e *KnobScopeError) Unwrap() error { return e.Err }

// CheckKnobsFor refuses settings for knobs the incident does not read
// (a *KnobScopeError).
func CheckKnobsFor(spec *Spec, set []Setting) error {
	ks := KnobsFor(spec)
	for _, s := range set {
		ok := false
		for _, k := range ks {
			ok = ok || k.Name == s.Knob
		}
		if !ok {
			var names []string
			for _, k := range ks {
				names = append(names, k.Name)
			}
			return &KnobScopeError{fmt.Errorf("knob %q does not apply to incident %s (its knobs: %s)", clip(s.Knob), spec.ID, strings.Join(names, ", "))}
		}
	}
	return nil
}

// Knobs lists every knob, sorted by name.
func Knobs() []*Knob {
	out := append([]*Knob(nil), knobs...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// KnobNames lists the knob names, sorted, for error messages.
func KnobNames() []string {
	var names []string
	for _, k := range Knobs() {
		names = append(names, k.Name)
	}
	return names
}

// LookupKnob finds a knob by name.
func LookupKnob(name string) (*Knob, bool) {
	for _, k := range knobs {
		if k.Name == name {
			return k, true
		}
	}
	return nil, false
}

// Apply sets each knob in order on p, naming the knob and value that fail.
func (p *Params) Apply(settings []Setting) error {
	for _, s := range settings {
		k, ok := LookupKnob(s.Knob)
		if !ok {
			return fmt.Errorf("unknown knob %q (knobs: %s)", clip(s.Knob), strings.Join(KnobNames(), ", "))
		}
		if err := k.set(p, s.Value); err != nil {
			return &KnobError{Knob: s.Knob, Err: fmt.Errorf("knob %s=%s: %v", s.Knob, shown(s.Value), err)}
		}
	}
	return p.validate()
}

// KnobError is an Apply error about one knob's value, or about how it sits
// with Other, so that an incident file can point at the line that set it.
type KnobError struct {
	Knob, Other string
	Err         error
}

func (e *KnobError) Error() string { return e.Err.Error() }
func (e *KnobError) Unwrap() error { return e.Err }

func (p *Params) validate() error {
	if p.LatencyMax < p.LatencyMin {
		return &KnobError{Knob: "latency_max", Other: "latency_min",
			Err: fmt.Errorf("latency_max (%s) is below latency_min (%s)", FormatDuration(p.LatencyMax), FormatDuration(p.LatencyMin))}
	}
	return nil
}

// ParseSetting reads "key=value".
func ParseSetting(s string) (Setting, error) {
	k, v, ok := strings.Cut(s, "=")
	k = strings.TrimSpace(k)
	if !ok || k == "" {
		return Setting{}, fmt.Errorf("--set %q: want key=value", clip(s))
	}
	if _, found := LookupKnob(k); !found {
		return Setting{}, fmt.Errorf("--set %q: unknown knob %q (knobs: %s)", clip(s), clip(k), strings.Join(KnobNames(), ", "))
	}
	return Setting{Knob: k, Value: strings.TrimSpace(v)}, nil
}

// Diff lists the knobs whose values differ between a and b, as settings
// that turn a into b.
func (a *Params) Diff(b *Params) []Setting {
	var out []Setting
	for _, k := range Knobs() {
		if va, vb := k.get(a), k.get(b); va != vb {
			out = append(out, Setting{Knob: k.Name, Value: vb})
		}
	}
	return out
}
