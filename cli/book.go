package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/zerokit/zerokit/env/connect4"
	"github.com/zerokit/zerokit/env/connect4/solver"
	"github.com/zerokit/zerokit/env/games"
	"github.com/zerokit/zerokit/internal/atomicfile"
)

const bookUsage = `usage: zerokit book -out FILE [-game connect4] [-from MOVES] [-max-discs N] [-mover second] [flags]

Writes an opening book for the perfect player (Connect Four): every
position reachable from -from (columns, 0 the leftmost; the empty board
by default) with at most -max-discs discs whose player to move is
-mover, one of each pair of mirror images, solved exactly: its value, the
columns that keep it exactly (the fastest wins, the slowest losses) and
those that keep its result. The solver answers the book's positions
without searching; the standard board's shipped book is
env/connect4/book.txt.

An existing FILE is read and extended: its positions are not solved
again, and FILE is rewritten (atomically) after each new position, so the
command can be stopped (Ctrl-C, -max-minutes) and run again. A position
being solved when it stops is lost.
`

// runBook implements "zerokit book".
func runBook(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("book", bookUsage, stderr)
	out := fs.String("out", "", "the book `FILE` to write or extend (required)")
	gameName := fs.String("game", "connect4", "game: Connect Four, connect4 or connect4-CxR")
	from := fs.String("from", "", "the `MOVES` (columns) of the position the book starts from")
	maxDiscs := fs.Int("max-discs", 3, "most discs of a position of the book")
	moverName := fs.String("mover", "second", "positions of this player to move: first, second or both")
	parallel := fs.Int("parallel", 1, "positions solved at the same time")
	tableBits := fs.Int("table-bits", 24, "each solver's table has 2^`B` entries of 9 bytes")
	maxMinutes := fs.Float64("max-minutes", 0, "stop after this many `minutes` (0: no limit)")
	quiet := fs.Bool("q", false, "no line per position on stderr")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *out == "" {
		fs.Usage()
		return errors.New("-out is required")
	}
	if *parallel < 1 || *maxMinutes < 0 {
		return errors.New("-parallel must be at least 1 and -max-minutes not negative")
	}
	mover, ok := map[string]solver.Mover{"first": solver.FirstMover, "second": solver.SecondMover, "both": solver.BothMovers}[*moverName]
	if !ok {
		return fmt.Errorf("-mover %q: want first, second or both", *moverName)
	}
	game, err := games.ByName(*gameName)
	if err != nil {
		return fmt.Errorf("-game: %w", err)
	}
	c4, ok := game.(*connect4.Game)
	if !ok {
		return fmt.Errorf("-game: %s has no opening book (Connect Four has)", game.Name())
	}
	geo, err := c4.Geometry()
	if err != nil {
		return fmt.Errorf("-game: %w", err)
	}
	prefix := make([]int, len(*from))
	for i, c := range *from {
		if c < '0' || c > '9' {
			return fmt.Errorf("-from %q: character %d is not a column digit", *from, i+1)
		}
		prefix[i] = int(c - '0')
	}
	if *maxDiscs < len(prefix) || *maxDiscs > geo.Cells() {
		return fmt.Errorf("-max-discs %d: want from %d (the discs of -from) to %d", *maxDiscs, len(prefix), geo.Cells())
	}
	positions, err := geo.BookPositions(prefix, *maxDiscs, mover)
	if err != nil {
		return fmt.Errorf("-from %q: %w", *from, err)
	}
	book := solver.NewBook(geo)
	if f, err := os.Open(*out); err == nil {
		book, err = solver.ReadBook(f, geo)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", *out, err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	before, have := book.Len(), 0
	for _, m := range positions {
		if p, _ := geo.FromMoves(m); book.Has(p) {
			have++
		}
	}
	if *maxMinutes > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(*maxMinutes*float64(time.Minute)))
		defer cancel()
	}
	// The commands that wrote the book so far, then this one.
	var comments []string
	for _, c := range book.Comments {
		if strings.HasPrefix(c, "written by: ") {
			comments = append(comments, c)
		}
	}
	comments = append(comments, "written by: "+commandLine("book", args),
		"MOVES VALUE BEST KEEP: columns 0 = leftmost (- the empty board); W win, L loss, D draw for the player to move, and the discs to the end under perfect play; BEST keep the value exactly, KEEP the result")
	save := func() error {
		return atomicfile.Write(*out, 0o644, func(w io.Writer) error { return book.Write(w, comments) })
	}
	start := time.Now()
	added := 0
	err = solver.BuildBook(ctx, solver.BuildConfig{
		Book: book, Positions: positions, Workers: *parallel, TableBits: *tableBits,
		Added: func(e solver.Entry, took time.Duration) error {
			added++
			if !*quiet {
				fmt.Fprintf(stderr, "book: %d/%d %s %v best %v (solved in %s, %s elapsed)\n", have+added, len(positions), solver.MovesString(e.Moves), e.Value, e.Best, took.Round(time.Millisecond), time.Since(start).Round(time.Second))
			}
			return save()
		},
	})
	stopped := ""
	switch {
	case err != nil && ctx.Err() != nil:
		stopped = " (stopped before the end: run the command again to go on)"
	case err != nil:
		return err
	case added == 0:
		if err := save(); err != nil {
			return err
		}
	}
	// BuildBook adds only positions asked for and missing, each once (the
	// list holds one of each pair of mirror images).
	missing := len(positions) - have - added
	fmt.Fprintf(stdout, "%s: %d positions (%d new, %d read), %d of the %d asked for still missing, in %s%s\n",
		*out, book.Len(), added, before, missing, len(positions), time.Since(start).Round(time.Second), stopped)
	return nil
}
