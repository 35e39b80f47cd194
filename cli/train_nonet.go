//go:build nonet

package cli

import (
	"context"
	"io"
)

// runTrain needs the network library, which this build lacks.
func runTrain(context.Context, []string, io.Reader, io.Writer, io.Writer) error { return errNoNetwork }

// runSelfplay needs the network library, which this build lacks.
func runSelfplay(context.Context, []string, io.Reader, io.Writer, io.Writer) error {
	return errNoNetwork
}

// runWorker needs the network library, which this build lacks.
func runWorker(context.Context, []string, io.Reader, io.Writer, io.Writer) error { return errNoNetwork }

// runBench needs the network library, which this build lacks.
func runBench(context.Context, []string, io.Reader, io.Writer, io.Writer) error { return errNoNetwork }

// linksLibtorch reports whether this build links libtorch (about 170 MB
// resident once loaded): this one does not.
const linksLibtorch = false
