package train

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// recordedPhase is a phase as a progressRecorder saw it.
type recordedPhase struct {
	desc, unit string
	total      int64
	added      int64
	descs      []string
	finished   bool
}

// progressRecorder records the phases a run reports.
type progressRecorder struct {
	mu     sync.Mutex
	phases []*recordedPhase
}

func (r *progressRecorder) Phase(desc string, total int64, unit string) Phase {
	r.mu.Lock()
	defer r.mu.Unlock()
	if n := len(r.phases); n > 0 && !r.phases[n-1].finished {
		panic("phase " + desc + " started before " + r.phases[n-1].desc + " finished")
	}
	p := &recordedPhase{desc: desc, total: total, unit: unit}
	r.phases = append(r.phases, p)
	return recorderPhase{r, p}
}

type recorderPhase struct {
	r *progressRecorder
	p *recordedPhase
}

func (p recorderPhase) Add(n int64) {
	p.r.mu.Lock()
	defer p.r.mu.Unlock()
	p.p.added += n
}

func (p recorderPhase) Describe(desc string) {
	p.r.mu.Lock()
	defer p.r.mu.Unlock()
	p.p.descs = append(p.p.descs, desc)
}

func (p recorderPhase) Finish() {
	p.r.mu.Lock()
	defer p.r.mu.Unlock()
	p.p.finished = true
}

// TestRunProgress: a run reports each self-play phase in positions (up to
// the iteration's target, described with its games as they finish) and
// each training phase in steps, one phase at a time, each finished and
// labelled with the recipe's stage.
func TestRunProgress(t *testing.T) {
	if testing.Short() {
		t.Skip("a short training run")
	}
	var rec progressRecorder
	cfg, err := LoadConfig(pinnedConfig)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Run(context.Background(), Options{Dir: filepath.Join(t.TempDir(), "run"), ConfigPath: pinnedConfig, MaxSteps: 20, Progress: &rec})
	if err != nil {
		t.Fatal(err)
	}
	var selfPlay, steps int64
	for _, p := range rec.phases {
		if !p.finished {
			t.Errorf("phase %q not finished", p.desc)
		}
		switch {
		case strings.HasPrefix(p.desc, "selfplay: self-play "):
			if p.unit != "pos" || p.total != cfg.Train.PositionsPerIteration || p.added != p.total || len(p.descs) == 0 ||
				!strings.HasSuffix(p.descs[len(p.descs)-1], " games") {
				t.Errorf("self-play phase %+v", *p)
			}
			selfPlay++
		case strings.HasPrefix(p.desc, "selfplay: train step "):
			if p.unit != "steps" || p.added != p.total {
				t.Errorf("training phase %+v", *p)
			}
			steps += p.added
		default:
			t.Errorf("unexpected phase %+v", *p)
		}
	}
	if selfPlay < int64(sum.Iterations) || steps != sum.Step {
		t.Errorf("%d self-play phases and %d steps shown, run %+v", selfPlay, steps, sum)
	}
}
