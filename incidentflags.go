package main

import (
	"strings"

	"github.com/spf13/pflag"

	"inflight/engine"
	"inflight/incidents"
)

// incidentFlags are shared by the commands that pick an incident.
type incidentFlags struct {
	file string
	seed uint64
	set  []string
}

func (f *incidentFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&f.file, "incident-file", "", "load an incident from this file instead of a bundled one")
	fs.Uint64Var(&f.seed, "seed", 0, "the seed (default: the incident's own, which reproduces the lesson)")
	fs.StringArrayVar(&f.set, "set", nil, "change a knob, key=value (repeatable)")
}

// resolve loads the incident named by id (or the file) and parses and
// checks --set.
func (f *incidentFlags) resolve(fs *pflag.FlagSet, id string) (*engine.Spec, uint64, []engine.Setting, error) {
	var spec *engine.Spec
	var err error
	switch {
	case f.file != "":
		if id != "" {
			return nil, 0, nil, usageErr("give an incident id or --incident-file, not both")
		}
		if spec, err = incidents.Load(f.file); err != nil {
			return nil, 0, nil, usageErr("%v", err)
		}
	default:
		if id == "" {
			id = incidents.DefaultID
		}
		if spec, err = incidents.Get(id); err != nil {
			return nil, 0, nil, usageErr("%v", err)
		}
	}
	seed := spec.Seed
	if fs.Changed("seed") {
		seed = f.seed
	}
	var set []engine.Setting
	for _, s := range f.set {
		st, err := engine.ParseSettingFor(spec, s)
		if err != nil {
			return nil, 0, nil, usageErr("%v", err)
		}
		set = append(set, st)
	}
	if err := checkChanges(spec, set, "--set"); err != nil {
		return nil, 0, nil, err
	}
	return spec, seed, set, nil
}

// checkChanges checks knob changes against the incident before any run,
// naming the bad one and the flag that gave it: the one place the
// commands check --set and --vary.
func checkChanges(spec *engine.Spec, set []engine.Setting, flag string) error {
	p := spec.Params
	if err := p.Apply(set); err != nil {
		return usageErr("%s %v", flag, err)
	}
	if err := engine.CheckKnobsFor(spec, set); err != nil {
		return usageErr("%s: %v", flag, err)
	}
	return nil
}

// oneArg is the command's one optional argument.
func oneArg(fs *pflag.FlagSet) (string, error) {
	switch fs.NArg() {
	case 0:
		return "", nil
	case 1:
		return fs.Arg(0), nil
	}
	return "", usageErr("%s: unexpected arguments %s", fs.Name(), strings.Join(fs.Args()[1:], " "))
}

// specForCode parses a share code and finds the incident it opens on:
// the file it was made on, or the bundled one it names.
func specForCode(s, file string) (*engine.Spec, engine.Code, error) {
	code, err := engine.ParseCode(s)
	if err != nil {
		return nil, code, usageErr("%v", err)
	}
	var spec *engine.Spec
	if file != "" {
		if spec, err = incidents.Load(file); err != nil {
			return nil, code, usageErr("%v", err)
		}
	}
	if spec, err = incidents.ForCode(code, spec); err != nil {
		return nil, code, usageErr("%v", err)
	}
	return spec, code, nil
}
