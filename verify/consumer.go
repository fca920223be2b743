package verify

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
	"go.opentelemetry.io/otel/attribute"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// The SQLite driver is modernc.org/sqlite: a translation of SQLite's C
// source to Go. It needs no cgo, so `go build`, `go test` and the CI keep
// working with CGO_ENABLED=0 and cross-compiled binaries, and nobody else's
// package has to change how it is built. mattn/go-sqlite3 would be somewhat
// faster per statement, but this test spends its time in process restarts
// and Redis round trips, not in SQLite, and cgo would make every build of
// the inflight binary depend on a C toolchain.

// ConsumerEnv names the environment variable that turns the inflight binary
// (or a test binary) into the cashback consumer: its value is the path of
// the consumer's JSON configuration. Command code checks IsConsumer first
// thing and hands over to ConsumerMain.
const ConsumerEnv = "INFLIGHT_VERIFY_CONSUMER"

// ExitCrash is the consumer's exit code when it "dies" on purpose: after
// its wallet transaction ended and before its XACK.
const ExitCrash = 42

// consumerConfig is what the parent hands a consumer process.
type consumerConfig struct {
	Addr     string  `json:"addr"`
	Key      string  `json:"key"`
	Group    string  `json:"group"`
	Consumer string  `json:"consumer"`
	DB       string  `json:"db"`
	Dedupe   bool    `json:"dedupe"`
	Batch    int     `json:"batch"`
	Crashes  []Crash `json:"crashes"`        // the deliveries to die on
	OTLP     string  `json:"otlp,omitempty"` // where spans go (ParseEndpoint's); "": none
}

// IsConsumer reports whether this process was started as a consumer.
func IsConsumer() bool { return os.Getenv(ConsumerEnv) != "" }

// ConsumerMain runs the consumer process and returns its exit code: 0 when
// the stream has nothing new for it, ExitCrash when it died on a scheduled
// delivery, 1 on an error (told on stderr). Progress goes to stdout, one
// line at a time, for the parent: "a N" (entries up to N acknowledged) and
// "c N D" (died on delivery D of entry N).
func ConsumerMain() int {
	if err := consume(os.Getenv(ConsumerEnv), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "consumer:", err)
		return 1
	}
	return 0
}

// openWallet opens the wallet database. WAL with synchronous=NORMAL: a
// committed transaction is in the WAL file (written, not yet fsynced)
// before COMMIT returns, so it survives the process dying, which is the
// failure this test is about; only a power cut could lose it. One
// connection: the consumer is single-threaded, as in the lesson.
func openWallet(path string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=busy_timeout(5000)")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// newClient connects to Redis plainly: RESP2, no CLIENT SETINFO, no
// maintenance-notification handshake, so any Redis 5+ answers without
// warnings.
func newClient(addr string) *redis.Client {
	return redis.NewClient(&redis.Options{
		Addr: addr, Protocol: 2, DisableIdentity: true, PoolSize: 2,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
		DialTimeout:              5 * time.Second,
	})
}

type quietLogger struct{}

func (quietLogger) Printf(context.Context, string, ...any) {}

func init() { redis.SetLogger(quietLogger{}) }

func consume(cfgPath string, out io.Writer) error {
	data, err := os.ReadFile(cfgPath)
	if err != nil {
		return err
	}
	var cfg consumerConfig
	if err := json.Unmarshal(data, &cfg); err != nil {
		return fmt.Errorf("%s: %w", cfgPath, err)
	}
	crash := make(map[Crash]bool, len(cfg.Crashes))
	for _, c := range cfg.Crashes {
		crash[c] = true
	}
	db, err := openWallet(cfg.DB)
	if err != nil {
		return err
	}
	defer db.Close()
	rdb := newClient(cfg.Addr)
	defer rdb.Close()
	ctx := context.Background()
	var spans *consumerSpans // nil: no --otlp
	if cfg.OTLP != "" {
		t, err := newTracer(cfg.OTLP, "cashback-consumer", instanceID(), sideName(cfg.Dedupe))
		if err != nil {
			return err
		}
		spans = &consumerSpans{tracer: t, stream: cfg.Key, group: cfg.Group, client: cfg.Consumer}
	}

	acked := -1
	report := func() {
		if acked >= 0 {
			fmt.Fprintf(out, "a %d\n", acked)
		}
	}
	sinceReport := 0
	// A (re)started consumer first re-reads its own pending entries, the
	// ones delivered to it but never acknowledged, with XREADGROUP … 0;
	// when there are none it reads new ones with >.
	pendingPhase := true
	for {
		start := ">"
		if pendingPhase {
			start = "0"
		}
		var readAt time.Time
		if spans != nil {
			readAt = time.Now()
		}
		res, err := rdb.XReadGroup(ctx, &redis.XReadGroupArgs{
			Group: cfg.Group, Consumer: cfg.Consumer, Streams: []string{cfg.Key, start},
			Count: int64(cfg.Batch), Block: -1,
		}).Result()
		if errors.Is(err, redis.Nil) {
			res, err = nil, nil
		}
		if err != nil {
			return fmt.Errorf("XREADGROUP %s: %w", start, err)
		}
		var batch []redis.XMessage
		if len(res) > 0 {
			batch = res[0].Messages
		}
		if len(batch) == 0 {
			if pendingPhase {
				pendingPhase = false
				continue
			}
			report()
			return spans.shutdown() // nothing new: the stream is drained
		}
		// The delivery number of each entry is Redis's own delivery
		// counter: 1 for a > read, what XPENDING says for a re-read.
		deliveries := map[string]int{}
		if pendingPhase {
			pend, err := rdb.XPendingExt(ctx, &redis.XPendingExtArgs{
				Stream: cfg.Key, Group: cfg.Group, Consumer: cfg.Consumer,
				Start: batch[0].ID, End: batch[len(batch)-1].ID, Count: int64(len(batch)),
			}).Result()
			if err != nil {
				return fmt.Errorf("XPENDING: %w", err)
			}
			for _, p := range pend {
				deliveries[p.ID] = int(p.RetryCount)
			}
		}
		pendingPhase = false
		recv := spans.receive(readAt, start, batch)
		for _, m := range batch {
			n, amount, user, err := parseEntry(m)
			if err != nil {
				return err
			}
			delivery := 1
			if d, ok := deliveries[m.ID]; ok {
				delivery = d
			}
			pctx, proc := spans.process(recv, m, delivery)
			if err := credit(pctx, db, spans, cfg.Dedupe, m.ID, user, amount); err != nil {
				return fmt.Errorf("entry %d (%s): %w", n, m.ID, err)
			}
			if err := spans.failed(); err != nil {
				return err // a span is lost: the recording would lie
			}
			if crash[Crash{Entry: n, Delivery: delivery}] {
				// After COMMIT (or the dedupe ROLLBACK), before XACK; the
				// process span is never ended.
				report()
				fmt.Fprintf(out, "c %d %d\n", n, delivery)
				os.Exit(ExitCrash)
			}
			ack := spans.settle(pctx, m.ID)
			err = rdb.XAck(ctx, cfg.Key, cfg.Group, m.ID).Err()
			end(ack, err)
			end(proc, err)
			if err != nil {
				return fmt.Errorf("XACK %s: %w", m.ID, err)
			}
			acked = n
			if sinceReport++; sinceReport == 50 {
				sinceReport = 0
				report()
			}
		}
	}
}

func parseEntry(m redis.XMessage) (n, amount int, user string, err error) {
	get := func(k string) string { s, _ := m.Values[k].(string); return s }
	n, err1 := strconv.Atoi(get("n"))
	amount, err2 := strconv.Atoi(get("amount"))
	user = get("user")
	if err1 != nil || err2 != nil || user == "" {
		return 0, 0, "", fmt.Errorf("entry %s: unexpected fields %v", m.ID, m.Values)
	}
	return n, amount, user, nil
}

// credit is the lesson's handler. Without dedupe:
//
//	BEGIN; UPDATE wallet SET balance = balance + 100 WHERE user = 'u1'; COMMIT;
//
// With dedupe the processed-ids row goes in the same transaction; a unique
// violation means the entry was already credited: roll back, skip.
//
// With spans, each statement is a client span under the process span in
// ctx: the dedupe row's INSERT (outcome first or repeat), and the credit's
// UPDATE, ended once COMMIT returned.
func credit(ctx context.Context, db *sql.DB, spans *consumerSpans, dedupe bool, eventID, user string, amount int) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if dedupe {
		s := spans.dbSpan(ctx, "INSERT", "processed", insertQuery, "")
		if _, err := tx.ExecContext(ctx, insertQuery, eventID); err != nil {
			tx.Rollback()
			if isUniqueViolation(err) {
				end(s, nil, attribute.String(attrDedupe, "repeat"))
				return nil // already processed: skip the credit, still XACK
			}
			end(s, err)
			return err
		}
		end(s, nil, attribute.String(attrDedupe, "first"))
	}
	s := spans.dbSpan(ctx, "UPDATE", "wallet", updateQuery, strconv.Itoa(amount))
	if _, err := tx.ExecContext(ctx, updateQuery, amount, user); err != nil {
		tx.Rollback()
		end(s, err)
		return err
	}
	err = tx.Commit()
	end(s, err)
	return err
}

func isUniqueViolation(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		c := se.Code()
		return c == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY || c == sqlite3.SQLITE_CONSTRAINT_UNIQUE
	}
	return false
}

// createWallet makes the wallet database: u1 at 0, no processed ids.
func createWallet(path string) error {
	db, err := openWallet(path)
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.Exec(`CREATE TABLE wallet(user TEXT PRIMARY KEY, balance INTEGER NOT NULL);
INSERT INTO wallet(user, balance) VALUES ('u1', 0);
CREATE TABLE processed(event_id TEXT PRIMARY KEY);`)
	return err
}

// readWallet returns u1's balance and the number of processed ids.
func readWallet(path string) (balance, processed int64, err error) {
	db, err := openWallet(path)
	if err != nil {
		return 0, 0, err
	}
	defer db.Close()
	if err := db.QueryRow("SELECT balance FROM wallet WHERE user = 'u1'").Scan(&balance); err != nil {
		return 0, 0, err
	}
	if err := db.QueryRow("SELECT COUNT(*) FROM processed").Scan(&processed); err != nil {
		return 0, 0, err
	}
	return balance, processed, nil
}
