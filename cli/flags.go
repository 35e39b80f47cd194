package cli

import (
	"flag"
	"fmt"
	"io"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/games"
)

// newFlagSet returns the flag set of subcommand name: parse errors go to
// stderr, and -h (or a usage error) prints usage, then the flags and their
// defaults.
func newFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	return fs
}

// withSpecHelp is the usage text of a command taking agent specs: usage
// (which ends by introducing them), the kinds of specs of specHelp
// (agents.Help) and the heading of the flags.
func withSpecHelp(usage, specHelp string) string {
	return usage + specHelp + "\nflags:\n"
}

// newSpecFlagSet is newFlagSet for a command taking agent specs whose
// registry depends on its flags (eval, gauntlet: -parallel): the usage
// lists the kinds of specs, read from a registry made for it alone.
func newSpecFlagSet(name, usage string, stderr io.Writer) (*flag.FlagSet, error) {
	reg, fs, err := newAgentsFlagSet(name, usage, stderr)
	if err != nil {
		return nil, err
	}
	reg.Close()
	return fs, nil
}

// newAgentsFlagSet is newFlagSet for a command that plays agent specs
// from one registry, made here: the usage lists its kinds of specs. The
// caller closes the registry.
func newAgentsFlagSet(name, usage string, stderr io.Writer) (*agents, *flag.FlagSet, error) {
	reg, err := newAgents(1)
	if err != nil {
		return nil, nil, err
	}
	return reg, newFlagSet(name, withSpecHelp(usage, reg.Help()), stderr), nil
}

// parseFlags parses args into fs, for a command that takes flags only:
// arguments left over print the usage and are an error.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	return nil
}

// isFlagSet reports whether the flag name was given on the command line.
func isFlagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}

// mainGame is the family the -game flags default to when the program
// registers it: Watch Your Back!, the game zerokit is for.
const mainGame = "wyb"

// defaultGame is the default of a -game flag: mainGame when the program
// registers it and keep accepts its default game, else the first
// registered family (by name) whose default game keep accepts (nil: any),
// so that a program of one game of its own needs no -game. With none, it
// is mainGame, which the command then reports as unknown.
func defaultGame(keep func(env.Game) bool) string {
	return pickGame(games.Families(), keep)
}

// pickGame is defaultGame among the families fams, sorted by name.
func pickGame(fams []games.Registration, keep func(env.Game) bool) string {
	first := ""
	for _, r := range fams {
		g, err := r.Defaults.Game()
		if err != nil || (keep != nil && !keep(g)) {
			continue
		}
		if r.Name == mainGame {
			return mainGame
		}
		if first == "" {
			first = r.Name
		}
	}
	if first == "" {
		return mainGame
	}
	return first
}
