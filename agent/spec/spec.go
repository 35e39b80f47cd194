// Package spec turns agent spec strings such as "random",
// "alphabeta:depth=3", "alphabeta:time=500ms,seed=7" or
// "net:path=runs/x/export,sims=64" into agent factories.
//
// A spec is a kind, optionally followed by a colon and comma-separated
// key=value parameters:
//
//	spec   = kind [ ":" param { "," param } ]
//	param  = key "=" value
//
// Kinds and keys are lower-case words ([a-z][a-z0-9_]*); a value is any
// non-empty text without a comma. Every kind accepts the key seed (an
// unsigned integer, default DefaultSeed), the seed of the agent's random
// choices. Unknown kinds, unknown keys, repeated keys and bad values are
// errors naming the problem.
//
// The kinds come from a Registry. Default registers the baseline agents of
// package agent; commands add more (the neural agent, which needs libtorch)
// with Registry.Register, so this package does not depend on them.
package spec

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/env"
)

// DefaultSeed is the seed of a spec without seed=.
const DefaultSeed = 1

// SeedKey is the parameter every kind accepts.
const SeedKey = "seed"

// OpeningKey is the other parameter every kind accepts: opening=N makes
// the agent play its first N actions uniformly at random (seeded by its
// seed; agent.WithOpening), noise that makes a match between deterministic
// players more than one game.
const OpeningKey = "opening"

// maxOpening bounds opening=N.
const maxOpening = 1000

// Param is one key=value parameter.
type Param struct {
	Key, Value string
}

// Spec is a parsed spec string.
type Spec struct {
	// Kind is the agent kind, e.g. "alphabeta".
	Kind string
	// Params are the parameters in the order written.
	Params []Param
}

// String writes the spec back in its canonical form.
func (s Spec) String() string {
	if len(s.Params) == 0 {
		return s.Kind
	}
	parts := make([]string, len(s.Params))
	for i, p := range s.Params {
		parts[i] = p.Key + "=" + p.Value
	}
	return s.Kind + ":" + strings.Join(parts, ",")
}

// Lookup returns the value of key.
func (s Spec) Lookup(key string) (string, bool) {
	for _, p := range s.Params {
		if p.Key == key {
			return p.Value, true
		}
	}
	return "", false
}

// Parse checks the syntax of a spec string (surrounding blanks ignored). It
// does not check that the kind or its keys exist; Registry.Build does.
func Parse(text string) (Spec, error) {
	t := strings.TrimSpace(text)
	kind, rest, hasParams := strings.Cut(t, ":")
	if kind == "" {
		return Spec{}, fmt.Errorf("agent spec %q: missing agent kind (e.g. random, alphabeta:depth=3)", text)
	}
	if !isWord(kind) {
		return Spec{}, fmt.Errorf("agent spec %q: kind %q is not a lower-case word", text, kind)
	}
	s := Spec{Kind: kind}
	if !hasParams {
		return s, nil
	}
	if rest == "" {
		return Spec{}, fmt.Errorf("agent spec %q: nothing after %q; write key=value parameters or drop the colon", text, kind+":")
	}
	for i, item := range strings.Split(rest, ",") {
		key, value, ok := strings.Cut(item, "=")
		switch {
		case !ok:
			return Spec{}, fmt.Errorf("agent spec %q: parameter %d %q is not key=value", text, i+1, item)
		case !isWord(key):
			return Spec{}, fmt.Errorf("agent spec %q: parameter %d: key %q is not a lower-case word", text, i+1, key)
		case value == "":
			return Spec{}, fmt.Errorf("agent spec %q: parameter %q has an empty value", text, key)
		}
		if _, dup := s.Lookup(key); dup {
			return Spec{}, fmt.Errorf("agent spec %q: parameter %q given twice", text, key)
		}
		s.Params = append(s.Params, Param{key, value})
	}
	return s, nil
}

func isWord(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// Params gives typed access to a spec's parameters for a Kind's
// constructor. Its getters return a default for absent keys and an error
// naming the key, value and kind for bad ones.
type Params struct {
	spec Spec
}

// Kind is the spec's kind.
func (p Params) Kind() string { return p.spec.Kind }

// Has reports whether key was given.
func (p Params) Has(key string) bool {
	_, ok := p.spec.Lookup(key)
	return ok
}

// String returns key's value, or def.
func (p Params) String(key, def string) string {
	if v, ok := p.spec.Lookup(key); ok {
		return v
	}
	return def
}

func (p Params) bad(key, value, want string, err error) error {
	if err != nil {
		return fmt.Errorf("agent %s: %s=%s: want %s: %w", p.spec.Kind, key, value, want, err)
	}
	return fmt.Errorf("agent %s: %s=%s: want %s", p.spec.Kind, key, value, want)
}

// Int returns key's value as an integer in [lo, hi], or def.
func (p Params) Int(key string, def, lo, hi int) (int, error) {
	v, ok := p.spec.Lookup(key)
	if !ok {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, p.bad(key, v, fmt.Sprintf("an integer in [%d, %d]", lo, hi), nil)
	}
	if n < lo || n > hi {
		return 0, p.bad(key, v, fmt.Sprintf("an integer in [%d, %d]", lo, hi), nil)
	}
	return n, nil
}

// Bool returns key's value as a switch, written 1 (on) or 0 (off), or def.
func (p Params) Bool(key string, def bool) (bool, error) {
	v, ok := p.spec.Lookup(key)
	if !ok {
		return def, nil
	}
	switch v {
	case "1":
		return true, nil
	case "0":
		return false, nil
	}
	return false, p.bad(key, v, "1 (on) or 0 (off)", nil)
}

// Float returns key's value as a finite number in [lo, hi], or def.
func (p Params) Float(key string, def, lo, hi float64) (float64, error) {
	v, ok := p.spec.Lookup(key)
	if !ok {
		return def, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < lo || f > hi || f != f {
		return 0, p.bad(key, v, fmt.Sprintf("a number in [%g, %g]", lo, hi), nil)
	}
	return f, nil
}

// Duration returns key's value as a positive duration ("500ms", "2s"), or
// def.
func (p Params) Duration(key string, def time.Duration) (time.Duration, error) {
	v, ok := p.spec.Lookup(key)
	if !ok {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, p.bad(key, v, "a duration such as 500ms or 2s", nil)
	}
	if d <= 0 {
		return 0, p.bad(key, v, "a positive duration", nil)
	}
	return d, nil
}

// Seed returns the seed parameter, or DefaultSeed.
func (p Params) Seed() (uint64, error) {
	v, ok := p.spec.Lookup(SeedKey)
	if !ok {
		return DefaultSeed, nil
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, p.bad(SeedKey, v, "an unsigned integer", nil)
	}
	return n, nil
}

// Kind is one kind of agent a Registry can build.
type Kind struct {
	// Summary describes the kind in one line.
	Summary string
	// Keys maps each accepted parameter (besides seed) to a one-line
	// description including its default.
	Keys map[string]string
	// New builds a factory for game from the parameters. It is called only
	// after every key has been checked against Keys.
	New func(game env.Game, p Params) (agent.Factory, error)
}

// Registry maps kind names to Kinds. The zero value is empty and ready to
// use. A Registry is not safe for concurrent modification.
type Registry struct {
	kinds map[string]Kind
}

// Register adds kind under name; a name already registered is an error.
func (r *Registry) Register(name string, k Kind) error {
	if !isWord(name) {
		return fmt.Errorf("spec: kind name %q is not a lower-case word", name)
	}
	if k.New == nil {
		return fmt.Errorf("spec: kind %q has no constructor", name)
	}
	for _, reserved := range []string{SeedKey, OpeningKey} {
		if _, ok := k.Keys[reserved]; ok {
			return fmt.Errorf("spec: kind %q declares the reserved key %q", name, reserved)
		}
	}
	if _, ok := r.kinds[name]; ok {
		return fmt.Errorf("spec: kind %q registered twice", name)
	}
	if r.kinds == nil {
		r.kinds = make(map[string]Kind)
	}
	r.kinds[name] = k
	return nil
}

// Names lists the registered kinds in alphabetical order.
func (r *Registry) Names() []string {
	names := make([]string, 0, len(r.kinds))
	for n := range r.kinds {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Help describes every kind and its keys, one per line, for usage texts.
func (r *Registry) Help() string {
	var sb strings.Builder
	for _, n := range r.Names() {
		k := r.kinds[n]
		fmt.Fprintf(&sb, "  %s: %s\n", n, k.Summary)
		keys := make([]string, 0, len(k.Keys))
		for key := range k.Keys {
			keys = append(keys, key)
		}
		sort.Strings(keys)
		for _, key := range keys {
			fmt.Fprintf(&sb, "      %s=  %s\n", key, k.Keys[key])
		}
	}
	fmt.Fprintf(&sb, "  every kind also takes seed=N (default %d) and opening=N (its first N actions uniformly random; default 0)\n", DefaultSeed)
	return sb.String()
}

// Built is an agent spec resolved by a Registry.
type Built struct {
	// Spec is the parsed spec.
	Spec Spec
	// Factory builds agents; Seed is the spec's seed.
	Factory agent.Factory
	Seed    uint64
}

// NewAgent builds the agent for the game-th game (0, 1, ...) played with
// this spec, seeded with Seed+game so that every game is reproducible and
// different.
func (b Built) NewAgent(game uint64) (agent.Agent, error) {
	a, err := b.Factory(b.Seed + game)
	if err != nil {
		return nil, fmt.Errorf("agent %s: %w", b.Spec, err)
	}
	return a, nil
}

// Build parses text and resolves it for game.
func (r *Registry) Build(game env.Game, text string) (Built, error) {
	s, err := Parse(text)
	if err != nil {
		return Built{}, err
	}
	k, ok := r.kinds[s.Kind]
	if !ok {
		return Built{}, fmt.Errorf("agent spec %q: unknown kind %q (known: %s)", text, s.Kind, strings.Join(r.Names(), ", "))
	}
	for _, p := range s.Params {
		if _, ok := k.Keys[p.Key]; !ok && p.Key != SeedKey && p.Key != OpeningKey {
			known := []string{SeedKey, OpeningKey}
			for key := range k.Keys {
				known = append(known, key)
			}
			sort.Strings(known)
			return Built{}, fmt.Errorf("agent spec %q: kind %s has no key %q (known: %s)", text, s.Kind, p.Key, strings.Join(known, ", "))
		}
	}
	p := Params{spec: s}
	seed, err := p.Seed()
	if err != nil {
		return Built{}, err
	}
	open, err := p.Int(OpeningKey, 0, 0, maxOpening)
	if err != nil {
		return Built{}, err
	}
	f, err := k.New(game, p)
	if err != nil {
		return Built{}, fmt.Errorf("agent spec %q: %w", text, err)
	}
	if f, err = agent.WithOpening(f, open); err != nil {
		return Built{}, fmt.Errorf("agent spec %q: %w", text, err)
	}
	return Built{Spec: s, Factory: f, Seed: seed}, nil
}
