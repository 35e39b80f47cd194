package export

import (
	"slices"
	"testing"
	"time"
)

// TestCourseBudget checks the course's CPU limits per board size and the
// default budget inside them.
func TestCourseBudget(t *testing.T) {
	for _, tc := range []struct {
		n             int
		limit, budget time.Duration
	}{
		{6, 7500 * time.Millisecond, 6 * time.Second},
		{7, 10 * time.Second, 8 * time.Second},
		{8, 13100 * time.Millisecond, 10500 * time.Millisecond}, // 10 s * 64/49 = 13.06 s
		{9, 16500 * time.Millisecond, 13200 * time.Millisecond}, // 16.53 s
		{13, 34500 * time.Millisecond, 27600 * time.Millisecond},
	} {
		if got := CourseCPULimit(tc.n); got != tc.limit {
			t.Errorf("CourseCPULimit(%d) = %v, want %v", tc.n, got, tc.limit)
		}
		if got := CourseGameTime(tc.n); got != tc.budget || got >= CourseCPULimit(tc.n) {
			t.Errorf("CourseGameTime(%d) = %v, want %v (inside the limit)", tc.n, got, tc.budget)
		}
	}
}

func TestBudgetFor(t *testing.T) {
	for _, tc := range []struct {
		game               string
		gameTime, cpuLimit time.Duration
		want               Budget
		flags              []string
	}{
		{"wyb", 0, 0, Budget{GameTime: 55 * time.Second}, []string{"-game-time", "55s"}},
		{"wyb", -1, 0, Budget{}, nil},
		{"wyb", 20 * time.Second, 0, Budget{GameTime: 20 * time.Second}, []string{"-game-time", "20s"}},
		{"squatter6", 0, 0, Budget{Squatter: true, CourseGameTime: true, CourseCPULimit: true}, nil},
		{"squatter7", -1, -1, Budget{Squatter: true}, nil},
		{"squatter6", 5 * time.Second, 7 * time.Second, Budget{Squatter: true, GameTime: 5 * time.Second, CPULimit: 7 * time.Second}, []string{"-game-time", "5s"}},
	} {
		got := budgetFor(tc.game, tc.gameTime, tc.cpuLimit)
		if got != tc.want || !slices.Equal(got.flags(), tc.flags) {
			t.Errorf("budgetFor(%s, %v, %v) = %+v, flags %q; want %+v, %q", tc.game, tc.gameTime, tc.cpuLimit, got, got.flags(), tc.want, tc.flags)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-move-time", "2s"}, ""},
		{[]string{"-game-time", "55s"}, "-game-time"},
		{[]string{"-v", "--game-time=3s"}, "--game-time=3s"},
		{[]string{"game-time"}, ""},
	} {
		if got := gameTimeFlag(tc.args); got != tc.want {
			t.Errorf("gameTimeFlag(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}
