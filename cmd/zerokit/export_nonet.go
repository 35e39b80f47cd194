//go:build nonet

package main

import (
	"context"
	"io"
)

// runExport needs the network library, which this build lacks.
func runExport(context.Context, []string, io.Reader, io.Writer, io.Writer) error {
	return errNoNetwork
}
