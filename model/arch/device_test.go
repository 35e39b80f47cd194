package arch

import (
	"strings"
	"testing"
)

func TestParseDevice(t *testing.T) {
	tests := []struct {
		in   string
		want string // canonical name, or "" for an error
	}{
		{"", "auto"},
		{"auto", "auto"},
		{" AUTO ", "auto"},
		{"cpu", "cpu"},
		{"CPU", "cpu"},
		{"cuda", "cuda:0"},
		{"gpu", "cuda:0"},
		{"cuda:0", "cuda:0"},
		{"cuda:3", "cuda:3"},
		{"cuda:1023", "cuda:1023"},
		{"cuda:1024", ""},
		{"cuda:", ""},
		{"cuda:-1", ""},
		{"cuda:+1", ""},
		{"cuda:01", ""},
		{"cuda:x", ""},
		{"cuda0", ""},
		{"mps", ""},
		{"tpu:0", ""},
	}
	for _, tt := range tests {
		d, err := ParseDevice(tt.in)
		if tt.want == "" {
			if err == nil || !strings.Contains(err.Error(), DeviceNames) || !strings.Contains(err.Error(), tt.in) {
				t.Errorf("ParseDevice(%q) = %v, %v; want an error naming the input and the syntax", tt.in, d, err)
			}
			continue
		}
		if err != nil || d.String() != tt.want {
			t.Errorf("ParseDevice(%q) = %v, %v; want %s", tt.in, d, err, tt.want)
		}
		if again, err := ParseDevice(d.String()); err != nil || again != d {
			t.Errorf("ParseDevice(%q) does not round-trip: %v, %v", d.String(), again, err)
		}
	}
}

func TestConfigValidateDevice(t *testing.T) {
	c := DefaultConfig()
	c.Device = "cuda:x"
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), `device "cuda:x"`) {
		t.Fatalf("Validate with a bad device: %v", err)
	}
	c.Device = "cuda:1"
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
}

func FuzzParseDevice(f *testing.F) {
	for _, s := range []string{"auto", "cpu", "cuda", "cuda:7", "cuda:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDevice(s)
		if err != nil {
			return
		}
		if again, err := ParseDevice(d.String()); err != nil || again != d {
			t.Fatalf("%q parsed to %v, which does not round-trip: %v, %v", s, d, again, err)
		}
	})
}
