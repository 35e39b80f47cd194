package strictyaml

import (
	"errors"
	"strings"
	"testing"
)

type inner struct {
	Rate float64 `yaml:"rate"`
}

type conf struct {
	Name  string `yaml:"name"`
	Size  int    `yaml:"size"`
	Inner inner  `yaml:"inner"`
}

func (c *conf) Validate() error {
	if c.Size <= 0 {
		return errors.New("size: must be positive")
	}
	return nil
}

func TestDecode(t *testing.T) {
	tests := []struct {
		name, text string
		want       conf
		errHas     []string
	}{
		{name: "defaults kept", text: "name: a\n", want: conf{Name: "a", Size: 3, Inner: inner{Rate: 0.5}}},
		{name: "empty file", text: "", want: conf{Size: 3, Inner: inner{Rate: 0.5}}},
		{name: "nested", text: "inner:\n  rate: 2\nsize: 7\n", want: conf{Size: 7, Inner: inner{Rate: 2}}},
		{name: "unknown key", text: "name: a\nsizee: 4\n", errHas: []string{"f.yaml", "line 2", "sizee"}},
		{name: "unknown nested key", text: "inner:\n  rat: 1\n", errHas: []string{"line 2", "rat"}},
		{name: "duplicate key", text: "size: 1\nsize: 2\n", errHas: []string{"line 2", "size"}},
		{name: "type mismatch", text: "size: big\n", errHas: []string{"line 1", "big"}},
		{name: "second document", text: "size: 1\n---\nsize: 2\n", errHas: []string{"second YAML document"}},
		{name: "validation", text: "size: -1\n", errHas: []string{"f.yaml", "size: must be positive"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := conf{Size: 3, Inner: inner{Rate: 0.5}}
			err := Decode("f.yaml", []byte(tc.text), &c)
			if len(tc.errHas) > 0 {
				if err == nil {
					t.Fatalf("no error, want one containing %q", tc.errHas)
				}
				for _, s := range tc.errHas {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not contain %q", err, s)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c != tc.want {
				t.Errorf("got %+v, want %+v", c, tc.want)
			}
		})
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	c := conf{Name: "x", Size: 9, Inner: inner{Rate: 0.25}}
	b, err := Encode(&c)
	if err != nil {
		t.Fatal(err)
	}
	var d conf
	if err := Decode("round", b, &d); err != nil {
		t.Fatal(err)
	}
	if d != c {
		t.Fatalf("round trip: got %+v, want %+v", d, c)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte("name: a\nsize: 2\n"))
	f.Add([]byte("inner: {rate: 1e9}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var c conf
		_ = Decode("fuzz", b, &c)
	})
}
