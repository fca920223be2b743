package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"inflight/engine"
	"inflight/otlp"
)

// otlpSink collects a run's trace for --otlp and writes it as OTLP JSON
// when the run has ended.
type otlpSink struct {
	path string
	buf  bytes.Buffer
}

// otlpTrace returns the writer the run's trace goes to: the sink, and
// stdout too under --trace.
func (o *runOptions) otlpTrace(trace io.Writer) (io.Writer, error) {
	if o.otlp == "" {
		return trace, nil
	}
	if o.maxEvents > otlp.MaxExportEvents {
		o.maxEvents = otlp.MaxExportEvents
	}
	o.sink = &otlpSink{path: o.otlp}
	if trace == nil {
		return &o.sink.buf, nil
	}
	return io.MultiWriter(trace, &o.sink.buf), nil
}

// writeOTLP writes the collected trace as OTLP JSON to --otlp's file.
// set is the run's from its start, forks the sets of its forks after
// their moments.
func (o *runOptions) writeOTLP(spec *engine.Spec, seed uint64, set []engine.Setting, forks [][]engine.Setting, sum engine.Summary) error {
	if o.sink == nil {
		return nil
	}
	// a run its budget stopped is not the run: export none of it
	if sum.Unfinished == (engine.Budget{Events: o.maxEvents}).StopLine() {
		if o.maxEvents == otlp.MaxExportEvents {
			return usageErr("--otlp %s: the run has more than %d events; --otlp exports runs up to that size", o.sink.path, otlp.MaxExportEvents)
		}
		return usageErr("--otlp %s: the run stopped at --max-events %d before its end; nothing exported", o.sink.path, o.maxEvents)
	}
	meta := otlp.Meta{Incident: spec.ID, Seed: seed, FIFO: otlp.Ordered(spec, o.set)}
	if err := otlp.StreamsMeta(&meta, spec, set, forks); err != nil {
		return usageErr("--otlp %s: %v", o.sink.path, err)
	}
	// export into memory first: a run the contract cannot write leaves no file
	var out bytes.Buffer
	if err := otlp.Export(&o.sink.buf, &out, meta); err != nil {
		return usageErr("--otlp %s: %v", o.sink.path, err)
	}
	if err := writeWhole(o.sink.path, out.Bytes()); err != nil {
		return fmt.Errorf("--otlp: %v", err)
	}
	return nil
}

// writeWhole writes data to path through a temporary file beside it,
// renamed over path once written: a write that fails midway (a full disk)
// leaves no partial file, and an earlier file at path stays whole.
func writeWhole(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
