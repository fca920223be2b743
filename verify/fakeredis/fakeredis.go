// Package fakeredis is a stand-in for redis-server in tests of how verify
// starts, stops and cleans up after its children: it answers just enough
// of RESP2 (PING, INFO, XGROUP, XADD, DEL) for verify to get as far as
// starting consumers. It keeps no data. It is not a Redis.
package fakeredis

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
)

// Main runs the stand-in with redis-server's command line (`--port N`,
// `--version`) and returns the exit code. With reject set it refuses
// XGROUP, so verify fails right after starting it.
func Main(args []string, reject bool) int {
	port := ""
	for i, a := range args {
		switch a {
		case "--version":
			fmt.Println("Redis server v=0.0.0 (inflight test stand-in)")
			return 0
		case "--port":
			if i+1 < len(args) {
				port = args[i+1]
			}
		}
	}
	if port == "" {
		fmt.Fprintln(os.Stderr, "fakeredis: no --port")
		return 1
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", port))
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakeredis:", err)
		return 1
	}
	for {
		c, err := ln.Accept()
		if err != nil {
			return 1
		}
		go serve(c, reject)
	}
}

func serve(c net.Conn, reject bool) {
	defer c.Close()
	r := bufio.NewReader(c)
	for {
		cmd, err := readCommand(r)
		if err != nil {
			return
		}
		var reply string
		switch strings.ToUpper(cmd) {
		case "PING":
			reply = "+PONG\r\n"
		case "INFO":
			body := fmt.Sprintf("# Server\r\nredis_version:0.0.0\r\nprocess_id:%d\r\n", os.Getpid())
			reply = fmt.Sprintf("$%d\r\n%s\r\n", len(body), body)
		case "XGROUP":
			reply = "+OK\r\n"
			if reject {
				reply = "-ERR the stand-in refuses XGROUP\r\n"
			}
		case "XADD":
			reply = "$3\r\n1-0\r\n"
		case "DEL":
			reply = ":1\r\n"
		default:
			reply = "-ERR the stand-in does not know " + strconv.Quote(cmd) + "\r\n"
		}
		if _, err := io.WriteString(c, reply); err != nil {
			return
		}
	}
}

// readCommand reads one RESP array of bulk strings and returns its first.
func readCommand(r *bufio.Reader) (string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return "", err
	}
	if !strings.HasPrefix(line, "*") {
		return "", fmt.Errorf("not an array: %q", line)
	}
	n, err := strconv.Atoi(strings.TrimSpace(line[1:]))
	if err != nil || n < 1 || n > 1024 {
		return "", fmt.Errorf("bad array length %q", line)
	}
	var first string
	for i := 0; i < n; i++ {
		hdr, err := r.ReadString('\n')
		if err != nil {
			return "", err
		}
		size, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(hdr, "$")))
		if err != nil || size < 0 || size > 1<<20 {
			return "", fmt.Errorf("bad bulk length %q", hdr)
		}
		buf := make([]byte, size+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return "", err
		}
		if i == 0 {
			first = string(buf[:size])
		}
	}
	return first, nil
}

// The variables the stand-in reads: EnvMode makes a test binary that calls
// Main from its TestMain the stand-in ("serve", or "reject" to refuse
// XGROUP); the script appends the pids of the children it forks to the
// file EnvPids names.
const (
	EnvMode = "INFLIGHT_FAKEREDIS"
	EnvPids = "INFLIGHT_FAKEREDIS_PIDS"
)

// WriteScript writes an executable redis-server into dir that, like a
// server with helpers, forks a long-lived child (its pid appended to the
// EnvPids file) and then becomes self, a test binary that hands over to
// Main when EnvMode is set.
func WriteScript(dir, self string) error {
	script := `#!/bin/sh
if [ "$1" = "--version" ]; then echo "Redis server v=0.0.0 (inflight test stand-in)"; exit 0; fi
sleep 300 </dev/null >/dev/null 2>&1 &
echo $! >> "$` + EnvPids + `"
exec ` + strconv.Quote(self) + ` "$@"
`
	return os.WriteFile(dir+"/redis-server", []byte(script), 0o755)
}

// FromEnv runs the stand-in if EnvMode asks for it: call it first thing
// in TestMain. It reports whether it ran, and the exit code.
func FromEnv() (int, bool) {
	switch os.Getenv(EnvMode) {
	case "serve":
		return Main(os.Args[1:], false), true
	case "reject":
		return Main(os.Args[1:], true), true
	}
	return 0, false
}
