package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"inflight/incidents"
	"inflight/internal/termtext"
	"inflight/otlp"
)

var importCommand = command{
	name:     "import",
	synopsis: "inflight import FILE [-o OUT.yaml] [--set knob=value]",
	summary:  "an incident file from OpenTelemetry messaging spans (OTLP JSON)",
	options:  func() options { return &importOptions{} },
}

type importOptions struct {
	out string
	id  string
	set []string
}

func (o *importOptions) flags(fs *pflag.FlagSet) {
	fs.StringVarP(&o.out, "output", "o", "", "write the incident to this file (default: standard output)")
	fs.StringVar(&o.id, "id", "", "the incident's id (default: the output file's name, or imported)")
	fs.StringArrayVar(&o.set, "set", nil, "give a broker setting the spans do not show, or override an inferred one: knob=value (repeatable)")
}

func (o *importOptions) run(fs *pflag.FlagSet, stdout, stderr io.Writer) error {
	if fs.NArg() != 1 {
		return usageErr("import: which file? give one OTLP JSON file (as the Collector's file exporter writes it)")
	}
	path := fs.Arg(0)
	shown := termtext.Clean(path, termtext.Quote)
	set := map[string]string{}
	for _, s := range o.set {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" || v == "" {
			return usageErr("--set %q: want knob=value", termtext.Clean(s, termtext.Quote))
		}
		set[k] = v
	}
	id := o.id
	if id == "" {
		id = "imported"
		if o.out != "" {
			id = strings.TrimSuffix(filepath.Base(o.out), filepath.Ext(o.out))
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return usageErr("import: %v", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > otlp.MaxFileBytes {
		return usageErr("%s: %d bytes; import takes files up to %d MiB", shown, st.Size(), otlp.MaxFileBytes>>20)
	}
	rec, err := otlp.Read(f)
	if err != nil {
		return usageErr("%s: %v", shown, err)
	}
	data, err := rec.Incident(id, set, stderr)
	if err != nil {
		return usageErr("%s: %v", shown, err)
	}
	// the file must be one the incident parser takes
	spec, err := incidents.Parse(id+".yaml", data)
	if err != nil {
		return usageErr("%s: the incident the spans give is refused: %v", shown, err)
	}
	if beats, err := importBeats(spec); err != nil {
		return usageErr("%s: the incident the spans give does not run: %v", shown, err)
	} else if beats != "" {
		data = append(data, beats...)
		if _, err := incidents.Parse(id+".yaml", data); err != nil {
			return usageErr("%s: the incident's bookmarks are refused: %v", shown, err)
		}
	}
	if o.out == "" {
		_, err = stdout.Write(data)
		return err
	}
	if err := writeWhole(o.out, data); err != nil {
		return fmt.Errorf("import: %v", err)
	}
	fmt.Fprintf(stderr, "wrote %s\n", termtext.Clean(o.out, termtext.Line))
	return nil
}
