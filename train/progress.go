package train

// Progress shows the progress of a run as it goes (Options.Progress):
// "zerokit train" draws it as progress bars on a terminal.
type Progress interface {
	// Phase starts showing a phase of the run (self-play, training) that
	// counts up to total units, named by unit ("pos", "steps"), described
	// by desc. The trainer finishes one phase before it starts the next.
	Phase(desc string, total int64, unit string) Phase
}

// Phase is the progress of one phase of a run. Its methods may be called
// from several goroutines at once (self-play games report their moves).
type Phase interface {
	// Add advances the phase by n units.
	Add(n int64)
	// Describe changes the phase's description.
	Describe(desc string)
	// Finish ends the phase (a progress bar is cleared).
	Finish()
}

// noPhase is the Phase of a run that shows no progress.
type noPhase struct{}

func (noPhase) Add(int64)       {}
func (noPhase) Describe(string) {}
func (noPhase) Finish()         {}

// phase starts showing a phase of total units (see Progress.Phase); it
// shows nothing without Options.Progress or units to count.
func (t *trainer) phase(desc string, total int64, unit string) Phase {
	if t.opts.Progress == nil || total <= 0 {
		return noPhase{}
	}
	return t.opts.Progress.Phase(desc, total, unit)
}

// phaseLabel is the progress display's description of a phase: the
// stage, the phase, and the latest evaluation.
func (t *trainer) phaseLabel(phase string) string {
	label := phase
	if t.stage != "" {
		label = t.stage + ": " + label
	}
	if t.lastEval != "" {
		label += " | eval " + t.lastEval
	}
	return label
}
