package stagelink

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// An attendee's work, kept for a reconnect that lands on another process
// of the hall (serve --keep-for), is NAME:kept:ID, ID the hex hash of the
// attendee's public key: a string of at most the caller's bytes, with the
// grace period as its TTL, taken (read and deleted) by the session that
// reconnects. What it holds is the caller's to validate: anyone who
// reaches the Redis may write it.

// ErrOffline says the link is not connected: a kept work is neither
// written nor read, at once, rather than after a timeout.
var ErrOffline = errors.New("the stage's Redis is not connected")

func (k keys) kept(id string) string { return k.name + ":kept:" + id }

// checkID refuses an id that is not a key's hash as serve writes it.
func checkID(id string) error {
	if id == "" || len(id) > 64 {
		return fmt.Errorf("kept id of %d bytes", len(id))
	}
	for _, r := range id {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return errors.New("kept id is not lowercase hex")
		}
	}
	return nil
}

func (l *Link) connected() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.online
}

// PutKept writes id's work for ttl, replacing what was there.
func (l *Link) PutKept(id string, data []byte, ttl time.Duration) error {
	if err := checkID(id); err != nil {
		return err
	}
	if !l.connected() {
		return ErrOffline
	}
	return l.op(l.ctx, func(ctx context.Context) error {
		return l.rdb.Set(ctx, l.keys.kept(id), data, ttl).Err()
	})
}

// TakeKept reads id's work and deletes it, in one transaction: nil when
// there is none. At most limit bytes are read; a longer value is an
// error (and deleted), never read whole.
func (l *Link) TakeKept(id string, limit int) ([]byte, error) {
	if err := checkID(id); err != nil {
		return nil, err
	}
	if !l.connected() {
		return nil, ErrOffline
	}
	var n *redis.IntCmd
	var get *redis.StringCmd
	key := l.keys.kept(id)
	err := l.op(l.ctx, func(ctx context.Context) error {
		_, err := l.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
			n = p.StrLen(ctx, key)
			get = p.GetRange(ctx, key, 0, int64(limit)) // one byte past the limit tells a longer value
			p.Del(ctx, key)
			return nil
		})
		return err
	})
	switch {
	case err != nil && n != nil && n.Err() != nil:
		return nil, fmt.Errorf("%s: %w", key, n.Err()) // not a string: WRONGTYPE
	case err != nil:
		return nil, err
	case n.Val() == 0:
		return nil, nil
	case n.Val() > int64(limit):
		return nil, fmt.Errorf("%s holds %d bytes; a kept work has at most %d", key, n.Val(), limit)
	}
	return []byte(get.Val()), nil
}
