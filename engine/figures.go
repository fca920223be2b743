package engine

import (
	"fmt"
	"sort"
	"strings"
)

// A FigureDef is one summary figure: its JSON key (a family's own and the
// kernel's extra figures as "figures.NAME") and what it counts. This
// table is the one definition: `inflight run --help` prints it, the
// README's table is checked against it, and the random suite recomputes
// the counted ones from the trace.
type FigureDef struct {
	Key, Def string
}

// "Held" below is the broker's sense, the one SQS's
// ApproximateAgeOfOldestMessage reads: a message stored and not yet
// deleted (acked, committed past, handled or dead-lettered), in flight
// included.

// SummaryFigures are the figures every run's summary gives, in its order.
var SummaryFigures = []FigureDef{
	{"messages", "messages published: orders, stream entries, readings, order events; kafka-restart's batch counts each order once however many copies are stored"},
	{"deliveries", "times a message was handed to a handler: a receive, a read of a record or a stream entry (a re-read of the pending list too), a write attempt (db-down's and galewatch's, first or retried)"},
	{"effects", "times a message's work reached the world: an email, a credit, a row stored or applied (ordering: an event applied, or ignored with versions=true as stale or a duplicate)"},
	{"duplicate_effects", "effects beyond each message's first"},
	{"done", "messages the system let go after at least one effect"},
	{"held_at_end", "messages still held at the end, or still being handled after an ack before the work"},
	{"lost", "messages the system let go with no effect and nobody working on them"},
	{"dlq", "messages in the dead letter queue at the end; done + held_at_end + dlq + lost = messages"},
	{"late_acks_refused", "acks the broker refused because the lease they quote had expired"},
	{"max_oldest_age_s", "the largest age, in seconds, the oldest message held reached over the run; a copy stored again ages from its own send"},
	{"busy", "share of the workers' time spent in handlers, from their start to the end"},
	{"alerts", "configured alerts that fired, each with the first time it did"},
	{"would_have_fired", "the alerts nobody configured, each with when it would first have fired"},
	{"end", "the clock of the last event"},
	{"events", "events in the trace"},
	{"decisions", "decisions recorded (each a fork can force)"},
	{"trace_sha256", "SHA-256 of the trace's fixed 32-byte records"},
	{"code", "the share code of the run's end"},
	{"forks", "the run's forks (--at, a code's), each with its name, its exact moment (@CLOCK before every event at that clock, @CLOCK #N after N events) and the events behind it (absent without one)"},
	{"unfinished", "why the run ended with work left (absent when it finished)"},
	{"worst_recovery", "the longest a crashed or wedged worker's message waited, from the crash or wedge to its next delivery: the recovery time a visibility timeout prices (absent when no worker crashed or wedged)"},
	{"pins_gave_way", "the incident's pins that gave way to an ordinary draw (absent when every pin held)"},
	{"figures.dlq_peak", "the most messages in the dead letter queue at once"},
	{"figures.crashes", "worker or consumer crashes"},
	{"figures.redriven", "messages an operator's redrive moved back from the dead letter queue"},
	{"figures.late_acks_accepted", "acks quoting an expired lease that the broker accepted"},
	{"figures.held_at_end", "held_at_end again, kept for scripts"},
	{"figures.wedged", "workers whose provider call never returned, at the end"},
	{"figures.wedged_retried", "of those, the ones whose message was delivered again"},
	{"figures.last_effect", "the clock of the last effect"},
}

// FamilyFigures are each family's own figures (its Figures), by the name
// of its descriptor.
var FamilyFigures = map[string][]FigureDef{
	"fifo-window": {
		{"attempts", "sends the producer made"},
		{"dropped_duplicates", "sends the broker accepted and dropped: their id was remembered"},
		{"accepted", "sends the broker stored as new messages"},
		{"emails", "confirmation emails sent"},
		{"dedup_window_s", "the deduplication interval in force at the end, in seconds"},
		{"retry_deadline_s", "the producer's retry deadline in force at the end, in seconds"},
		{"producer_gave_up", "the producer stopped retrying without an answer"},
	},
	"db-down": {
		{"retries", "failed writes put on a retry timer"},
		{"db_errors", "writes the database refused"},
		{"breaker_opened", "times the circuit breaker opened"},
		{"probes", "half-open trial writes"},
		{"rows_written", "rows the database stored"},
		{"requeued", "messages an opening breaker put back at the head of the line"},
	},
	"galewatch": {
		{"turbines", "turbines in the fleet"},
		{"rows", "rows the table stored"},
		{"retries", "re-sends of readings whose answer was lost"},
		{"retries_rejected", "re-sends the unique key threw away"},
		{"timeouts", "writes whose answer was lost"},
		{"collisions", "genuine readings rejected because their key was taken"},
		{"gave_up", "readings the turbines stopped re-sending at retry_deadline"},
		{"clock_step", "the step the daemon gives T0417's clock at 10:05"},
	},
	"ordering": {
		{"orders", "orders placed"},
		{"out_of_order", "events handled after a later event of the same order"},
		{"wrong_final", "orders whose final applied status is not shipped"},
		{"ignored_stale", "events ignored as older than the version applied (versions=true)"},
		{"ignored_duplicate", "events ignored as of the version already applied (versions=true)"},
		{"applied", "events written to the table"},
		{"handler_failures", "handler attempts whose database call failed"},
		{"retried_to_tail", "failed events republished to the tail"},
		{"rebalances", "consumer group rebalances"},
		{"partitions", "the topic's partitions at the end"},
		{"sticky_switches", "partition switches of the unkeyed producer's sticky partitioner"},
	},
	"kafka-restart": {
		{"consumer_crashes", "email consumer crashes"},
		{"producer_instances", "producer instances started"},
		{"producer_retries_dropped", "producer retries the broker dropped as duplicates"},
		{"records_stored", "data records in the topic's log"},
		{"records_aborted", "of those, records of aborted transactions"},
		{"records_stored_twice", "records stored beyond one per order, not aborted"},
		{"emails", "emails sent"},
		{"transactional_id", "the producer's transactional.id (empty: none)"},
		{"txn_timeouts", "transactions the coordinator aborted at transaction.timeout.ms"},
		{"batch", "records in the batch"},
		{"duplicates_from_producer", "duplicate emails from records stored twice"},
		{"duplicates_from_consumer", "duplicate emails from records read again"},
	},
	"cashback": {
		{"expected_balance", "₹100 for every entry written"},
		{"balance", "the wallet's balance at the end"},
		{"crashes", "consumer crashes"},
		{"skipped", "deliveries that found the event processed and skipped the credit"},
		{"crashes_after_skip", "crashes after a skip, before its XACK"},
		{"skipped_uncredited", "skips of events the wallet never got (dedupe=separate)"},
		{"processed_rows", "processed-id records written"},
		{"pending", "entries in the consumer's pending list at the end"},
		{"dead_lettered", "entries moved to the dead-letter stream"},
		{"dead_lettered_never_applied", "of those, entries whose credit never reached the wallet"},
		{"dead_lettered_applied", "of those, entries whose credit had reached the wallet"},
	},
	"stagefront": {
		{"people", "people pressing the button"},
		{"consumers", "consumers"},
		{"sold", "seats sold"},
		{"zero_row_successes", "updates that matched zero rows, taken for success"},
		{"zero_row_failures", "updates that matched zero rows, taken for failure"},
		{"crashes", "consumer crashes after a commit, before the ack"},
		{"dead_letters", "messages moved to the dead letter queue"},
		{"consumers_busy", "consumers handling a message at the end"},
		{"dead_letters_sold", "dead letters whose seat was sold"},
	},
}

// OwnFigures are the keys of a family's own summary figures found in any
// of figs (Summaries' Figures, which also hold the kernel's: last_effect,
// dlq_peak…), in the order of the family's FamilyFigures table; none for a
// family with no table.
func OwnFigures(family string, figs ...map[string]any) []string {
	var keys []string
	for _, f := range FamilyFigures[family] {
		for _, m := range figs {
			if _, ok := m[f.Key]; ok {
				keys = append(keys, f.Key)
				break
			}
		}
	}
	return keys
}

// ZeroFigure reports whether a family figure counts nothing (0, or
// empty): a comparison leaves out a figure zero on both sides.
func ZeroFigure(v any) bool {
	s := fmt.Sprint(v)
	return v == nil || s == "0" || s == ""
}

// LookupFigure is the definition of key ("dlq", "figures.balance") in the
// family's summary, if the table has one.
func LookupFigure(family, key string) (FigureDef, bool) {
	for _, f := range SummaryFigures {
		if f.Key == key {
			return f, true
		}
	}
	if name, ok := strings.CutPrefix(key, "figures."); ok {
		for _, f := range FamilyFigures[family] {
			if f.Key == name {
				return FigureDef{key, f.Def}, true
			}
		}
	}
	return FigureDef{}, false
}

// FiguresHelp is the summary's figures, one a line, for `run --help`.
func FiguresHelp() string {
	var b strings.Builder
	b.WriteString("The summary's figures:\n")
	for _, f := range SummaryFigures {
		fmt.Fprintf(&b, "  %-28s %s\n", f.Key, f.Def)
	}
	b.WriteString("and each incident's own figures.NAME (see the README's table).\n\n")
	return b.String()
}

// FiguresMarkdown is the README's table of the figures, generated from
// the two tables above.
func FiguresMarkdown() string {
	var b strings.Builder
	b.WriteString("| figure | what it counts |\n|---|---|\n")
	for _, f := range SummaryFigures {
		fmt.Fprintf(&b, "| `%s` | %s |\n", f.Key, f.Def)
	}
	fams := make([]string, 0, len(FamilyFigures))
	for fam := range FamilyFigures {
		fams = append(fams, fam)
	}
	sort.Strings(fams)
	for _, fam := range fams {
		for _, f := range FamilyFigures[fam] {
			fmt.Fprintf(&b, "| `figures.%s` (%s) | %s |\n", f.Key, fam, f.Def)
		}
	}
	return b.String()
}
