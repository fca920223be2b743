//go:build unix

package stagelink_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/log"

	"inflight/serve"
	"inflight/serve/stagelink"
)

// serve.Config.Stage: a bad URL is refused naming --stage, before the host
// key is written; a good one links the server's stage until Shutdown.
func TestServeStage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	key := filepath.Join(dir, "host_key")
	_, err := serve.New(serve.Config{HostKeyPath: key, Stage: "redis://:hunter2@h:0/0", Logger: log.New(&stagelink.SyncBuf{})})
	if err == nil || !strings.Contains(err.Error(), "--stage") || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("serve.New with a bad --stage: %v", err)
	}
	if _, err := os.Stat(key); err == nil {
		t.Error("a bad --stage left a host key behind")
	}

	r := stagelink.StartRedis(t, nil, "")
	logs := &stagelink.SyncBuf{}
	srv, err := serve.New(serve.Config{HostKeyPath: key, Stage: "redis://" + r.Addr() + "/0?key=serve", Logger: log.New(logs)})
	if err != nil {
		t.Fatal(err)
	}
	stagelink.WatchLog(t, logs)
	stagelink.WaitFor(t, "serve's stage connected", func() bool { return strings.Contains(logs.String(), "stage connected") })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	// the link ended with the server: Redis no longer has its connections,
	// so Redis going away afterwards is nothing it can hear
	raw := stagelink.OpenRaw(t, r)
	stagelink.Retry(t, "the link's connections closed", func() bool {
		list, err := raw.ClientList(t.Context()).Result()
		return err == nil && !strings.Contains(list, "name=inflight-stage-")
	})
	raw.Close()
	r.Kill()
	if strings.Contains(logs.String(), "stage connection lost") {
		t.Errorf("the link outlived Shutdown:\n%s", logs.String())
	}
}
