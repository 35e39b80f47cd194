// Package strictyaml decodes configuration files strictly: unknown keys,
// duplicate keys, type mismatches and trailing documents are errors that name
// the file and the line.
package strictyaml

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"gopkg.in/yaml.v3"
)

// Validator is implemented by configuration structs that can check their own
// values after decoding.
type Validator interface {
	Validate() error
}

// DecodeFile decodes the YAML file at path into dst, which should already
// hold the defaults: keys absent from the file keep their values. If dst
// implements Validator, it is validated after decoding.
func DecodeFile(path string, dst any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	return Decode(path, b, dst)
}

// Decode decodes YAML text into dst like DecodeFile; name labels errors.
func Decode(name string, text []byte, dst any) error {
	dec := yaml.NewDecoder(bytes.NewReader(text))
	dec.KnownFields(true)
	if err := dec.Decode(dst); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("config %s: %w", name, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		if err != nil {
			return fmt.Errorf("config %s: %w", name, err)
		}
		return fmt.Errorf("config %s: line %d: a second YAML document is not allowed", name, extra.Line)
	}
	if v, ok := dst.(Validator); ok {
		if err := v.Validate(); err != nil {
			return fmt.Errorf("config %s: %w", name, err)
		}
	}
	return nil
}

// Encode returns the YAML text of v, for writing the effective configuration
// of a run.
func Encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("config: encode: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("config: encode: %w", err)
	}
	return buf.Bytes(), nil
}
