package refbench

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// Usage is the part of an adapter's usage log that refbench reads (the
// Python and the Java adapters write the same fields).
type Usage struct {
	CPU      float64 `json:"cpu_seconds"`
	PeakMB   float64 `json:"peak_memory_mb"`
	Exceeded string  `json:"exceeded"`
	// Fallbacks is the number of the agent's moves played by a fallback,
	// nil when the adapter did not learn it.
	Fallbacks *int `json:"fallback_moves"`
}

// ReadUsage reads the last game's line of an adapter's usage log (JSON
// lines, one per game).
func ReadUsage(path string) (Usage, error) {
	all, err := ReadUsages(path)
	if err != nil {
		return Usage{}, err
	}
	return all[len(all)-1], nil
}

// ReadUsages reads every game's line of an adapter's usage log, oldest
// first. A log without a line is an error.
func ReadUsages(path string) ([]Usage, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var all []Usage
	for i, line := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var u Usage
		if err := json.Unmarshal([]byte(line), &u); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, i+1, err)
		}
		all = append(all, u)
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("%s: no usage line", path)
	}
	return all, nil
}
