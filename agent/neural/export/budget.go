package export

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// CourseCPULimit is the CPU time per player per game that the 2015 course
// allowed its Squatter agents on an n×n board: 7.5 s on 6x6 and 10 s on
// 7x7, as measured on its server (shared/referee-squatter/README.md). For
// larger boards, which the course did not play, it is the 7x7 limit per
// cell, the lower of the two rates: 10 s × n²/49, rounded to 0.1 s. The
// Java player (javaadapter) computes the same for cpu_limit=course.
func CourseCPULimit(n int) time.Duration {
	if n <= 6 {
		return 7500 * time.Millisecond
	}
	return time.Duration(math.Round(100*float64(n*n)/49)) * 100 * time.Millisecond
}

// CourseGameTime is the default thinking budget per game of a Squatter
// agent on an n×n board (game_time=course): 80% of CourseCPULimit, rounded
// to 0.1 s. The rest covers what the budget does not count: the process's
// start and network load, the player's own CPU time and the last move's
// overrun of its deadline.
func CourseGameTime(n int) time.Duration {
	return time.Duration(math.Round(float64(CourseCPULimit(n))*8/float64(time.Second))) * 100 * time.Millisecond
}

// DefaultGameTime is the default budget per game of the other games' agents:
// 55 s of the 2018 course's 60 s for Watch Your Back!.
const DefaultGameTime = 55 * time.Second

// Budget is an exported agent's time settings as its adapters get them.
type Budget struct {
	// Squatter: the Java player resolves "course" values for the
	// referee's N.
	Squatter bool
	// GameTime is the budget per game (serve -game-time), CPULimit the
	// Java player's cpu_limit; Course* say that they are the course's for
	// N (GameTime and CPULimit are then 0). 0 otherwise means none.
	GameTime, CPULimit             time.Duration
	CourseGameTime, CourseCPULimit bool
}

// CourseBudget reports whether the agents of the game named game play in
// the 2015 course's Java referee, whose player takes the course's budget
// and CPU limit for the referee's N by default (Squatter).
func CourseBudget(game string) bool {
	return strings.HasPrefix(game, "squatter")
}

// budgetFor resolves Options.GameTime and Options.CPULimit for game.
func budgetFor(game string, gameTime, cpuLimit time.Duration) Budget {
	b := Budget{Squatter: CourseBudget(game)}
	switch {
	case gameTime > 0:
		b.GameTime = gameTime
	case gameTime == 0 && b.Squatter:
		b.CourseGameTime = true
	case gameTime == 0:
		b.GameTime = DefaultGameTime
	}
	if b.Squatter {
		switch {
		case cpuLimit > 0:
			b.CPULimit = cpuLimit
		case cpuLimit == 0:
			b.CourseCPULimit = true
		}
	}
	return b
}

// flags are the serve flags of the budget for the Python adapter, which
// knows no "course" (the 2015 course's referee is the Java one).
func (b Budget) flags() []string {
	if b.GameTime > 0 {
		return []string{"-game-time", b.GameTime.String()}
	}
	return nil
}

// property writes a duration as a Java player's number of seconds, "course"
// or 0 (none).
func property(d time.Duration, course bool) string {
	if course {
		return "course"
	}
	return fmt.Sprint(d.Seconds())
}

// gameTimeFlag returns the -game-time flag among serve flags, or "".
func gameTimeFlag(args []string) string {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			continue
		}
		f := strings.TrimPrefix(a[1:], "-")
		if f == "game-time" || strings.HasPrefix(f, "game-time=") {
			return a
		}
	}
	return ""
}
