package data

import (
	"fmt"
	"math"
)

// WindowConfig sizes the replay window as a function of the number of
// positions generated so far, following KataGo (Wu, "Accelerating Self-Play
// Learning in Go", 2019, and KataGo's shuffle.py). With N positions
// generated, c = MinPositions, α = Alpha and β = Beta, the window holds the
// most recent
//
//	W(N) = c · (1 + β · ((N/c)^α − 1) / α)     for N > c, and W(N) = c below,
//
// positions, capped at MaxPositions. W grows with slope β at N = c and then
// sub-linearly (as N^α), so early positions from weak networks leave the
// window quickly while late in a run the window still spans many networks.
// KataGo used c = 250000, α = 0.75, β = 0.4.
type WindowConfig struct {
	// MinPositions is c, the window size until that many positions exist.
	MinPositions int64 `yaml:"min_positions"`
	// MaxPositions caps the window.
	MaxPositions int64 `yaml:"max_positions"`
	// Alpha is the growth exponent α, in (0, 1].
	Alpha float64 `yaml:"alpha"`
	// Beta is the initial growth rate β >= 0 (0 keeps the window at c).
	Beta float64 `yaml:"beta"`
}

// DefaultWindowConfig is KataGo's schedule with a smaller minimum, suited to
// small games on a few cores, capped at 500000 positions.
func DefaultWindowConfig() WindowConfig {
	return WindowConfig{MinPositions: 50_000, MaxPositions: 500_000, Alpha: 0.75, Beta: 0.4}
}

// Validate reports a configuration error naming the field.
func (c WindowConfig) Validate() error {
	switch {
	case c.MinPositions < 1:
		return fmt.Errorf("data: window: min_positions is %d, want at least 1", c.MinPositions)
	case c.MaxPositions < c.MinPositions:
		return fmt.Errorf("data: window: max_positions %d is below min_positions %d", c.MaxPositions, c.MinPositions)
	case !(c.Alpha > 0 && c.Alpha <= 1):
		return fmt.Errorf("data: window: alpha is %v, want a value in (0, 1]", c.Alpha)
	case !(c.Beta >= 0) || math.IsInf(c.Beta, 0):
		return fmt.Errorf("data: window: beta is %v, want a finite value >= 0", c.Beta)
	}
	return nil
}

// Size is the window W(total) in positions, for total positions generated
// so far.
func (c WindowConfig) Size(total int64) int64 {
	if total <= c.MinPositions {
		return c.MinPositions
	}
	minp := float64(c.MinPositions)
	w := minp * (1 + c.Beta*(math.Pow(float64(total)/minp, c.Alpha)-1)/c.Alpha)
	if w >= float64(c.MaxPositions) {
		return c.MaxPositions
	}
	return max(int64(w), c.MinPositions)
}
