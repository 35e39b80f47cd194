package games

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// UnmarshalYAML implements yaml.Unmarshaler: the mapping's name picks the
// family, whose Params type decodes the other keys. Keys absent from the
// mapping keep c's values if c already configures that family (a
// configuration's defaults), else the family's Defaults. A key that is not
// one of the family's parameters is an error naming its line, except
// turn_limit and size, which configurations written before games
// registered themselves carry for every game: a family without such a
// parameter ignores them, so those files still load.
func (c *Config) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: game: want a mapping of name and the game's parameters", n.Line)
	}
	name, nameLine := c.Name, n.Line
	seen := map[string]bool{}
	var params []*yaml.Node // key, value, key, value, ...
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return fmt.Errorf("line %d: game: a key is not a plain string", k.Line)
		}
		if seen[k.Value] {
			return fmt.Errorf("line %d: game.%s: given twice", k.Line, k.Value)
		}
		seen[k.Value] = true
		if k.Value != "name" {
			params = append(params, k, v)
			continue
		}
		if err := v.Decode(&name); err != nil {
			return fmt.Errorf("line %d: game.name: %w", v.Line, err)
		}
		nameLine = v.Line
	}
	r, err := lookupFamily(name)
	if err != nil {
		return fmt.Errorf("line %d: %w", nameLine, err)
	}
	base := r.Defaults
	if name == c.Name && c.Params != nil && reflect.TypeOf(c.Params) == reflect.TypeOf(r.Defaults) {
		base = c.Params
	}
	p, err := decodeParams(r, base, params, true)
	if err != nil {
		return err
	}
	*c = Config{Name: name, Params: p}
	return nil
}

// MarshalYAML implements yaml.Marshaler: name, then the parameters.
func (c Config) MarshalYAML() (any, error) {
	n := &yaml.Node{Kind: yaml.MappingNode}
	n.Content = append(n.Content,
		&yaml.Node{Kind: yaml.ScalarNode, Value: "name"},
		&yaml.Node{Kind: yaml.ScalarNode, Value: c.Name})
	p := c.Params
	if p == nil {
		if r, ok := family(c.Name); ok {
			p = r.Defaults
		}
	}
	if p != nil {
		var pn yaml.Node
		if err := pn.Encode(p); err != nil {
			return nil, fmt.Errorf("game %s: %w", c.Name, err)
		}
		if pn.Kind == yaml.MappingNode {
			n.Content = append(n.Content, pn.Content...)
		}
	}
	return n, nil
}

// With returns c with the parameter of YAML key key set to value, e.g.
// c.With("turn_limit", 0) for a command's flag; an error if the family
// has no such parameter or value does not fit it.
func (c Config) With(key string, value any) (Config, error) {
	r, err := lookupFamily(c.Name)
	if err != nil {
		return Config{}, err
	}
	var k, v yaml.Node
	if err := k.Encode(key); err != nil {
		return Config{}, fmt.Errorf("game.%s: %w", key, err)
	}
	if err := v.Encode(value); err != nil {
		return Config{}, fmt.Errorf("game.%s: %w", key, err)
	}
	base := c.Params
	if base == nil {
		base = r.Defaults
	}
	p, err := decodeParams(r, base, []*yaml.Node{&k, &v}, false)
	if err != nil {
		return Config{}, err
	}
	return Config{Name: c.Name, Params: p}, nil
}

// decodeParams decodes the key/value pairs onto a copy of base, a value of
// r's Params type. With legacy, turn_limit and size are ignored where r
// has no such parameter (see UnmarshalYAML).
func decodeParams(r Registration, base Params, pairs []*yaml.Node, legacy bool) (Params, error) {
	t := reflect.TypeOf(r.Defaults)
	if reflect.TypeOf(base) != t {
		return nil, fmt.Errorf("game: parameters of type %T are not %s's (%T)", base, r.Name, r.Defaults)
	}
	known := paramKeys(t)
	sub := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for i := 0; i+1 < len(pairs); i += 2 {
		k := pairs[i]
		if !known[k.Value] {
			if legacy && (k.Value == "turn_limit" || k.Value == "size") {
				continue
			}
			where := ""
			if k.Line > 0 {
				where = fmt.Sprintf("line %d: ", k.Line)
			}
			return nil, fmt.Errorf("%sgame.%s: not a parameter of %s (%s)", where, k.Value, r.Name, describeKeys(known))
		}
		sub.Content = append(sub.Content, k, pairs[i+1])
	}
	ptr := reflect.New(t)
	ptr.Elem().Set(reflect.ValueOf(base))
	if err := sub.Decode(ptr.Interface()); err != nil {
		return nil, fmt.Errorf("game: %w", err)
	}
	return ptr.Elem().Interface().(Params), nil
}

// paramKeys returns the YAML keys of a Params struct type's fields.
func paramKeys(t reflect.Type) map[string]bool {
	keys := map[string]bool{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		key, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		switch key {
		case "-":
			continue
		case "":
			key = strings.ToLower(f.Name)
		}
		keys[key] = true
	}
	return keys
}

// describeKeys says which parameters a family has.
func describeKeys(keys map[string]bool) string {
	if len(keys) == 0 {
		return "it has none"
	}
	list := make([]string, 0, len(keys))
	for k := range keys {
		list = append(list, k)
	}
	sort.Strings(list)
	return "its parameters: " + strings.Join(list, ", ")
}
