package protocol

import (
	"testing"
	"time"
)

func TestClockAllot(t *testing.T) {
	tests := []struct {
		name         string
		b            Budget
		used         time.Duration
		move, maxLen int
		want         time.Duration
	}{
		{"no budget", Budget{}, 0, 0, 100, 0},
		{"move cap only", Budget{MoveTime: time.Second}, 0, 0, 100, time.Second},
		// 60s*0.95 = 57s over ceil(100/2)=50 own moves.
		{"game budget at start", Budget{GameTime: 60 * time.Second}, 0, 0, 100, 1140 * time.Millisecond},
		{"capped by move time", Budget{GameTime: 60 * time.Second, MoveTime: time.Second}, 0, 0, 100, time.Second},
		// 57s-17s = 40s over (100-60+1)/2 = 20 moves.
		{"later, savings spread", Budget{GameTime: 60 * time.Second}, 17 * time.Second, 60, 100, 2 * time.Second},
		// Past the horizon: at least MinMovesToGo.
		{"near end keeps reserve", Budget{GameTime: 60 * time.Second}, 49 * time.Second, 98, 100, time.Second},
		{"no game bound", Budget{GameTime: 60 * time.Second}, 0, 10, 0, 57 * time.Second / (DefaultHorizon / 2)},
		{"explicit horizon", Budget{GameTime: 60 * time.Second, Horizon: 40}, 0, 0, 1000, 57 * time.Second / 20},
		{"spent", Budget{GameTime: time.Second}, 2 * time.Second, 0, 100, PanicTime},
	}
	for _, tc := range tests {
		c := NewClock(tc.b, nil)
		c.used = tc.used
		if got := c.Allot(tc.move, tc.maxLen); got != tc.want {
			t.Errorf("%s: Allot = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestClockAllotWeighted: without a weight to go or with a named horizon,
// a weighted move gets weight times the horizon's share, capped at the
// share of MinMovesToGo moves; else weight/weightToGo of the time left,
// weightToGo at least MinMovesToGo; MoveTime caps both.
func TestClockAllotWeighted(t *testing.T) {
	share := 57 * time.Second / (DefaultHorizon / 2) // 950ms, as "no game bound"
	tests := []struct {
		name         string
		b            Budget
		used         time.Duration
		weight, toGo float64
		want         time.Duration
	}{
		{"ordinary", Budget{GameTime: 60 * time.Second}, 0, 1, 0, share},
		{"below 1 counts as 1", Budget{GameTime: 60 * time.Second}, 0, 0.2, 0, share},
		{"weight 3", Budget{GameTime: 60 * time.Second}, 0, 3, 0, 3 * share},
		{"reserve kept", Budget{GameTime: 60 * time.Second}, 0, 100, 0, 57 * time.Second / MinMovesToGo},
		{"move time caps", Budget{GameTime: 60 * time.Second, MoveTime: time.Second}, 0, 3, 0, time.Second},
		{"spent", Budget{GameTime: time.Second}, 2 * time.Second, 3, 0, PanicTime},
		{"weight to go: ordinary", Budget{GameTime: 60 * time.Second}, 0, 1, 57, time.Second},
		{"weight to go: weight 3", Budget{GameTime: 60 * time.Second}, 0, 3, 57, 3 * time.Second},
		{"weight to go: a named horizon wins", Budget{GameTime: 60 * time.Second, Horizon: 130}, 0, 3, 57, 3 * share},
		{"weight to go: time used", Budget{GameTime: 60 * time.Second}, 37 * time.Second, 2, 10, 4 * time.Second},
		{"weight to go: at least MinMovesToGo", Budget{GameTime: 60 * time.Second}, 0, 3, 3, 3 * 57 * time.Second / MinMovesToGo},
		{"weight to go: move time caps", Budget{GameTime: 60 * time.Second, MoveTime: 2 * time.Second}, 0, 3, 57, 2 * time.Second},
		{"weight to go: spent", Budget{GameTime: time.Second}, 2 * time.Second, 3, 9, PanicTime},
	}
	for _, tc := range tests {
		c := NewClock(tc.b, nil)
		c.used = tc.used
		if got := c.AllotWeighted(10, 0, tc.weight, tc.toGo); got != tc.want {
			t.Errorf("%s: AllotWeighted = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestClockSpent(t *testing.T) {
	for _, tc := range []struct {
		b    Budget
		used time.Duration
		want bool
	}{
		{Budget{}, time.Hour, false},
		{Budget{MoveTime: time.Second}, time.Hour, false},
		{Budget{GameTime: 60 * time.Second}, 56 * time.Second, false},
		{Budget{GameTime: 60 * time.Second}, 57 * time.Second, true}, // 60s*(1-ReserveFraction)
		{Budget{GameTime: 60 * time.Second}, 59 * time.Second, true},
	} {
		c := NewClock(tc.b, nil)
		c.used = tc.used
		if got := c.Spent(); got != tc.want {
			t.Errorf("%+v, used %v: Spent = %v, want %v", tc.b, tc.used, got, tc.want)
		}
	}
}

func TestClockChargesCPU(t *testing.T) {
	cpu := time.Duration(0)
	c := NewClock(Budget{GameTime: time.Minute}, func() time.Duration { return cpu })
	stop := c.Start()
	cpu += 3 * time.Second // e.g. three threads searching for a second
	if d := stop(); d < 3*time.Second {
		t.Errorf("charged %v, want at least the 3s of CPU", d)
	}
	stop = c.Start()
	time.Sleep(2 * time.Millisecond) // wall time, no CPU
	if d := stop(); d < 2*time.Millisecond {
		t.Errorf("charged %v, want at least the 2ms of wall time", d)
	}
	if c.Used() < 3*time.Second+2*time.Millisecond {
		t.Errorf("Used = %v", c.Used())
	}
}

func TestBudgetValidate(t *testing.T) {
	for _, b := range []Budget{{MoveTime: -1}, {GameTime: -1}, {Horizon: -1}} {
		if b.Validate() == nil {
			t.Errorf("Validate(%+v) = nil", b)
		}
	}
	if err := (Budget{MoveTime: 1, GameTime: 2, Horizon: 3}).Validate(); err != nil {
		t.Error(err)
	}
}
