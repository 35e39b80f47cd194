package torch

import (
	"errors"
	"fmt"
	"math"
)

// Learning rate schedule kinds.
const (
	ScheduleConstant = "constant"
	ScheduleStep     = "step"
	ScheduleCosine   = "cosine"
)

// Schedule gives the learning rate of each training step: a linear warmup
// from LearningRate/WarmupSteps to LearningRate over the first WarmupSteps
// steps, then constant, step-wise or cosine decay.
type Schedule struct {
	// Kind is ScheduleConstant, ScheduleStep or ScheduleCosine.
	Kind string `yaml:"kind" json:"kind"`
	// LearningRate is the rate after warmup (the peak).
	LearningRate float64 `yaml:"learning_rate" json:"learning_rate"`
	// WarmupSteps is the length of the linear warmup (0: none).
	WarmupSteps int64 `yaml:"warmup_steps" json:"warmup_steps"`
	// StepEvery and StepFactor: a step schedule multiplies the rate by
	// StepFactor every StepEvery steps after warmup.
	StepEvery  int64   `yaml:"step_every" json:"step_every"`
	StepFactor float64 `yaml:"step_factor" json:"step_factor"`
	// TotalSteps is where a cosine schedule reaches MinLearningRate (and
	// stays).
	TotalSteps int64 `yaml:"total_steps" json:"total_steps"`
	// MinLearningRate is the floor of a cosine schedule.
	MinLearningRate float64 `yaml:"min_learning_rate" json:"min_learning_rate"`
}

// Validate checks the fields the kind uses.
func (s Schedule) Validate() error {
	var errs []error
	if !(s.LearningRate > 0) || math.IsInf(s.LearningRate, 0) {
		errs = append(errs, fmt.Errorf("schedule: learning_rate must be positive, got %v", s.LearningRate))
	}
	if s.WarmupSteps < 0 {
		errs = append(errs, fmt.Errorf("schedule: warmup_steps must be >= 0, got %d", s.WarmupSteps))
	}
	switch s.Kind {
	case ScheduleConstant:
	case ScheduleStep:
		if s.StepEvery <= 0 {
			errs = append(errs, fmt.Errorf("schedule: step_every must be positive for a %q schedule, got %d", s.Kind, s.StepEvery))
		}
		if !(s.StepFactor > 0 && s.StepFactor <= 1) {
			errs = append(errs, fmt.Errorf("schedule: step_factor must be in (0, 1], got %v", s.StepFactor))
		}
	case ScheduleCosine:
		if s.TotalSteps <= s.WarmupSteps {
			errs = append(errs, fmt.Errorf("schedule: total_steps (%d) must exceed warmup_steps (%d) for a %q schedule", s.TotalSteps, s.WarmupSteps, s.Kind))
		}
		if !(s.MinLearningRate >= 0 && s.MinLearningRate <= s.LearningRate) {
			errs = append(errs, fmt.Errorf("schedule: min_learning_rate must be in [0, learning_rate], got %v", s.MinLearningRate))
		}
	default:
		errs = append(errs, fmt.Errorf("schedule: kind must be %q, %q or %q, got %q", ScheduleConstant, ScheduleStep, ScheduleCosine, s.Kind))
	}
	return errors.Join(errs...)
}

// At returns the learning rate of step (0 for the first step).
func (s Schedule) At(step int64) float64 {
	if step < 0 {
		step = 0
	}
	if step < s.WarmupSteps {
		return s.LearningRate * float64(step+1) / float64(s.WarmupSteps)
	}
	after := step - s.WarmupSteps
	switch s.Kind {
	case ScheduleStep:
		return s.LearningRate * math.Pow(s.StepFactor, float64(after/s.StepEvery))
	case ScheduleCosine:
		p := math.Min(1, float64(after)/float64(s.TotalSteps-s.WarmupSteps))
		return s.MinLearningRate + (s.LearningRate-s.MinLearningRate)*0.5*(1+math.Cos(math.Pi*p))
	}
	return s.LearningRate
}
