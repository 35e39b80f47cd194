package cli

import (
	"testing"

	// The tests play this repository's games, which cmd/zerokit imports.
	_ "github.com/zerokit/zerokit/env/games/all"
)

// TestMaxProcs: twice the CPUs on a machine of its own; the runtime's
// default (the limit) under a container's CPU limit, never more Ps than
// the quota.
func TestMaxProcs(t *testing.T) {
	for _, tc := range []struct{ cpus, runtimeDefault, want int }{
		{2, 2, 4},    // the 2-core reference machine
		{16, 16, 32}, // a machine of its own
		{64, 2, 2},   // a pod limited to 2 CPUs on a 64-core node
		{64, 3, 3},   // limits.cpu 2500m (the runtime rounds up)
	} {
		if got := maxProcs(tc.cpus, tc.runtimeDefault); got != tc.want {
			t.Errorf("maxProcs(%d CPUs, runtime default %d) = %d, want %d", tc.cpus, tc.runtimeDefault, got, tc.want)
		}
	}
}
