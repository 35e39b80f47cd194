package wyb

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// oracleDir holds the vectors made with the official referee; it lives
// outside the repository (../shared next to the clone) and tests skip when
// it is absent.
var oracleDir = filepath.Join("..", "..", "..", "shared", "oracle-sample")

type oracleState struct {
	Board    string `json:"board"`
	Progress string `json:"progress"`
	W        int    `json:"W"`
	B        int    `json:"B"`
}

type oracleTrace struct {
	ID      int               `json:"id"`
	Policy  string            `json:"policy"`
	Actions []json.RawMessage `json:"actions"`
	States  []oracleState     `json:"states"`
	Winner  string            `json:"winner"`
}

type oracleInvalid struct {
	ID       int               `json:"id"`
	SourceID int               `json:"source_id"`
	BadIndex int               `json:"bad_index"`
	Kind     string            `json:"kind"`
	Actions  []json.RawMessage `json:"actions"`
	Message  string            `json:"referee_message"`
}

// readOracle decodes every line of a gzipped JSON-lines file into a new T.
func readOracle[T any](t *testing.T, name string) []T {
	t.Helper()
	f, err := os.Open(filepath.Join(oracleDir, name))
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("oracle vectors not present: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var out []T
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s line %d: %v", name, line, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out
}

// TestOracleTraces replays the referee's games and compares every state
// (board, progress line, piece counts) and the winner; the naive reference
// model of ref_test.go must agree too.
func TestOracleTraces(t *testing.T) {
	traces := readOracle[oracleTrace](t, "traces.jsonl.gz")
	if len(traces) == 0 {
		t.Fatal("no traces")
	}
	g := New(Options{})
	for _, tr := range traces {
		s := g.NewState()
		ref := newRefGame(0)
		if len(tr.States) != len(tr.Actions) {
			t.Fatalf("game %d: %d states for %d actions", tr.ID, len(tr.States), len(tr.Actions))
		}
		for i, raw := range tr.Actions {
			a, err := s.RefereeAction(raw)
			if err != nil {
				t.Fatalf("game %d (%s) action %d %s: %v\n%s", tr.ID, tr.Policy, i, raw, err, s.RefereeString())
			}
			if pa, err := ParseRefereeAction(raw); err != nil || pa != a {
				t.Errorf("game %d action %d: ParseRefereeAction(%s) = %d, %v; RefereeAction gave %d", tr.ID, i, raw, pa, err, a)
			}
			if !jsonEqual(t, RefereeAction(a), raw) {
				t.Errorf("game %d action %d: RefereeAction(%d) = %s, want %s", tr.ID, i, a, RefereeAction(a), raw)
			}
			if !ref.legal(a) {
				t.Fatalf("game %d action %d %s: the reference model rejects it", tr.ID, i, raw)
			}
			if err := s.ApplyAction(a); err != nil {
				t.Fatalf("game %d action %d: %v", tr.ID, i, err)
			}
			ref.update(a)
			want := tr.States[i]
			if got := s.String(); got != want.Board {
				t.Fatalf("game %d (%s) after action %d %s: board\n%s\nwant\n%s", tr.ID, tr.Policy, i, raw, got, want.Board)
			}
			if got := s.Progress(); got != want.Progress {
				t.Fatalf("game %d after action %d: progress %q, want %q", tr.ID, i, got, want.Progress)
			}
			if s.Pieces(WhitePlayer) != want.W || s.Pieces(BlackPlayer) != want.B {
				t.Fatalf("game %d after action %d: pieces %d/%d, want %d/%d", tr.ID, i, s.Pieces(0), s.Pieces(1), want.W, want.B)
			}
			if got := ref.String(); got != want.Board+"\n"+want.Progress {
				t.Fatalf("game %d after action %d: reference model\n%s\nwant\n%s\n%s", tr.ID, i, got, want.Board, want.Progress)
			}
			if s.Hash() != s.recomputeHash() {
				t.Fatalf("game %d after action %d: incremental hash differs", tr.ID, i)
			}
		}
		if got := s.RefereeWinner(); got != tr.Winner {
			t.Errorf("game %d: winner %s, want %s", tr.ID, got, tr.Winner)
		}
		if !s.IsTerminal() {
			t.Errorf("game %d: not terminal after the last action", tr.ID)
		}
	}
}

// acceptedReasons maps the oracle's kind of illegal action to the reasons
// this package may give. The oracle names what the generator intended; the
// referee reports the first check that fails, in its order (coordinates,
// then the moved piece, then the destination, then the geometry). A jump
// over a corner always lands off the board or on a removed square (corners
// sit at the corners of the live board), so it fails the coordinate check.
var acceptedReasons = map[string][]Reason{
	"place_outside_zone":       {ReasonPlaceOutsideZone},
	"place_on_occupied":        {ReasonPlaceOnOccupied},
	"place_on_corner":          {ReasonPlaceOnCorner},
	"place_off_board":          {ReasonPlaceOffBoard},
	"forfeit_in_placing":       {ReasonForfeitInPlacing},
	"malformed":                {ReasonMalformed},
	"jump_over_empty":          {ReasonJumpOverEmpty},
	"jump_over_corner":         {ReasonJumpOverCorner, ReasonMoveOffBoard, ReasonJumpOntoRemoved},
	"move_onto_corner":         {ReasonMoveOntoCorner},
	"move_onto_occupied":       {ReasonMoveOntoOccupied},
	"jump_onto_occupied":       {ReasonJumpOntoOccupied},
	"move_off_board":           {ReasonMoveOffBoard},
	"move_diagonal":            {ReasonMoveDiagonal},
	"move_too_far":             {ReasonMoveTooFar},
	"move_to_distant_square":   {ReasonMoveToDistantSquare},
	"move_opponent_piece":      {ReasonMoveOpponentPiece},
	"move_from_empty_square":   {ReasonMoveFromEmpty},
	"forfeit_with_moves":       {ReasonForfeitWithMoves},
	"move_onto_removed_square": {ReasonMoveOntoRemoved},
	"jump_onto_removed_square": {ReasonJumpOntoRemoved},
	"move_from_removed_square": {ReasonMoveFromRemoved},
}

// TestOracleInvalid checks that each illegal action of the oracle is
// rejected exactly at its index, with a fitting reason, and leaves the state
// unchanged.
func TestOracleInvalid(t *testing.T) {
	cases := readOracle[oracleInvalid](t, "invalid.jsonl.gz")
	if len(cases) == 0 {
		t.Fatal("no invalid cases")
	}
	g := New(Options{})
	for _, c := range cases {
		s := g.NewState()
		for i, raw := range c.Actions {
			a, err := s.RefereeAction(raw)
			if i < c.BadIndex {
				if err != nil {
					t.Fatalf("case %d: legal action %d %s rejected: %v", c.ID, i, raw, err)
				}
				if err := s.ApplyAction(a); err != nil {
					t.Fatalf("case %d: action %d: %v", c.ID, i, err)
				}
				continue
			}
			var ae *ActionError
			if !errors.As(err, &ae) {
				t.Errorf("case %d (%s): illegal action %s accepted or odd error %v", c.ID, c.Kind, raw, err)
				break
			}
			want, known := acceptedReasons[c.Kind]
			if !known {
				t.Errorf("case %d: unknown kind %q (rejected with %v: %s)", c.ID, c.Kind, ae.Reason, ae.Msg)
			} else if !slices.Contains(want, ae.Reason) {
				t.Errorf("case %d (%s) %s: reason %v (%s), want one of %v; referee said %q", c.ID, c.Kind, raw, ae.Reason, ae.Msg, want, c.Message)
			}
			// The engine form of the same action (when it has one) must be
			// rejected as well.
			if ea, err := ParseRefereeAction(raw); err == nil && s.IsLegal(ea) {
				t.Errorf("case %d (%s): engine action %s is legal", c.ID, c.Kind, FormatAction(ea))
			}
		}
		if c.BadIndex != len(c.Actions)-1 {
			t.Errorf("case %d: bad index %d is not the last of %d actions", c.ID, c.BadIndex, len(c.Actions))
		}
	}
}

func jsonEqual(t *testing.T, a string, b json.RawMessage) bool {
	t.Helper()
	var x, y bytes.Buffer
	if err := json.Compact(&x, []byte(a)); err != nil {
		t.Fatalf("bad JSON %q: %v", a, err)
	}
	if err := json.Compact(&y, b); err != nil {
		t.Fatalf("bad JSON %q: %v", b, err)
	}
	return x.String() == y.String()
}
