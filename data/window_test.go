package data

import (
	"math"
	"strings"
	"testing"
)

func TestWindowSize(t *testing.T) {
	kata := WindowConfig{MinPositions: 100, MaxPositions: 1000, Alpha: 0.75, Beta: 0.4}
	linear := WindowConfig{MinPositions: 100, MaxPositions: 10_000, Alpha: 1, Beta: 0.5}
	fixed := WindowConfig{MinPositions: 100, MaxPositions: 10_000, Alpha: 0.75, Beta: 0}
	tests := []struct {
		name  string
		cfg   WindowConfig
		total int64
		want  int64
	}{
		{"no data", kata, 0, 100},
		{"below min", kata, 60, 100},
		{"at min", kata, 100, 100},
		// (1600/100)^0.75 = 8: 100·(1 + 0.4·7/0.75) = 473.3
		{"16c", kata, 1600, 473},
		// (8100/100)^0.75 = 27: 100·(1 + 0.4·26/0.75) = 1486.7, capped
		{"81c capped", kata, 8100, 1000},
		// α = 1 is linear: c + β(N − c)
		{"linear", linear, 1100, 600},
		{"beta 0 is fixed", fixed, 1_000_000, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.cfg.Size(tt.total); got != tt.want {
				t.Fatalf("Size(%d) = %d, want %d", tt.total, got, tt.want)
			}
		})
	}
	// The slope at N = c is β, then decreasing.
	big := WindowConfig{MinPositions: 1_000_000, MaxPositions: math.MaxInt64, Alpha: 0.75, Beta: 0.4}
	slope := float64(big.Size(1_010_000)-big.Size(1_000_000)) / 10_000
	if math.Abs(slope-0.4) > 0.005 {
		t.Errorf("initial slope %v, want 0.4", slope)
	}
	late := float64(big.Size(100_010_000)-big.Size(100_000_000)) / 10_000
	if !(late < slope/2) {
		t.Errorf("slope at 100c %v, want well below the initial %v", late, slope)
	}
	prev := int64(0)
	for n := int64(0); n < 50_000_000; n += 99_991 {
		w := big.Size(n)
		if w < prev {
			t.Fatalf("window shrinks: Size(%d) = %d < %d", n, w, prev)
		}
		prev = w
	}
}

func TestWindowValidate(t *testing.T) {
	if err := DefaultWindowConfig().Validate(); err != nil {
		t.Fatalf("default: %v", err)
	}
	tests := []struct {
		name   string
		modify func(c *WindowConfig)
		want   string
	}{
		{"min", func(c *WindowConfig) { c.MinPositions = 0 }, "min_positions is 0"},
		{"max", func(c *WindowConfig) { c.MaxPositions = 10 }, "max_positions 10 is below"},
		{"alpha zero", func(c *WindowConfig) { c.Alpha = 0 }, "alpha is 0"},
		{"alpha big", func(c *WindowConfig) { c.Alpha = 1.5 }, "alpha is 1.5"},
		{"alpha NaN", func(c *WindowConfig) { c.Alpha = math.NaN() }, "alpha is NaN"},
		{"beta", func(c *WindowConfig) { c.Beta = -1 }, "beta is -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := DefaultWindowConfig()
			tt.modify(&c)
			if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Validate() = %v, want %q", err, tt.want)
			}
		})
	}
}
