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

// How the stand-in answers XGROUP, the first command of a run.
type mode int

const (
	accept mode = iota
	reject      // refuse it: verify fails right after starting the server
	hang        // never answer: verify waits there until interrupted
)

// Main runs the stand-in with redis-server's command line (`--port N`,
// `--version`) and returns the exit code.
func Main(args []string, m mode) int {
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
		go serve(c, m)
	}
}

func serve(c net.Conn, m mode) {
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
			switch m {
			case accept:
				reply = "+OK\r\n"
			case reject:
				reply = "-ERR the stand-in refuses XGROUP\r\n"
			case hang:
				io.Copy(io.Discard, c) // until the client goes away
				return
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
// FromEnv from its TestMain the stand-in ("serve"; "reject" to refuse
// XGROUP; "hang" to never answer it); the script appends the pids of the children it forks to the
// file EnvPids names.
const (
	EnvMode = "INFLIGHT_FAKEREDIS"
	EnvPids = "INFLIGHT_FAKEREDIS_PIDS"
	// set by the script alone: the processes that start it (a test, the
	// inflight under test) carry EnvMode but must stay themselves
	envRun = "INFLIGHT_FAKEREDIS_RUN"
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
export ` + envRun + `=1
exec ` + strconv.Quote(self) + ` "$@"
`
	return os.WriteFile(dir+"/redis-server", []byte(script), 0o755)
}

// FromEnv runs the stand-in if EnvMode asks for it: call it first thing
// in TestMain. It reports whether it ran, and the exit code.
func FromEnv() (int, bool) {
	if os.Getenv(envRun) == "" {
		return 0, false
	}
	switch os.Getenv(EnvMode) {
	case "serve":
		return Main(os.Args[1:], accept), true
	case "reject":
		return Main(os.Args[1:], reject), true
	case "hang":
		return Main(os.Args[1:], hang), true
	}
	return 0, false
}
