package bench

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/arena/refbench"
)

func TestRowsAndTable(t *testing.T) {
	g := func(colour string, out refbench.Outcome, sha string, cpu, mb float64) refbench.Game {
		return refbench.Game{Opponent: "x", AgentColour: colour, Outcome: out, MovesSHA256: sha, AgentCPU: cpu, AgentPeakMB: mb}
	}
	m := refbench.Match{Opponent: "x", AsWhite: refbench.Score{Wins: 2, Score: 1}, AsBlack: refbench.Score{Wins: 1, Draws: 1, Score: 0.75},
		DistinctAsWhite: 1, DistinctAsBlack: 2,
		Games: []refbench.Game{
			g("white", refbench.Win, "a", 10, 50), g("white", refbench.Win, "a", 20, 60),
			g("black", refbench.Win, "b", 30, 70), g("black", refbench.Draw, "c", 50, 80), g("black", refbench.Unfinished, "", 40, 90),
		}}
	rows := Rows([]refbench.Match{m})
	if len(rows) != 2 {
		t.Fatalf("%d rows", len(rows))
	}
	w, b := rows[0], rows[1]
	if w.Colour != "white" || w.Games != 2 || w.Distinct != 1 || w.MeanCPU != 15 || w.MaxPeakMB != 60 || w.MeanPeakMB != 55 {
		t.Errorf("white row %+v", w)
	}
	if b.Colour != "black" || b.Games != 3 || b.Distinct != 2 || b.Unfinished != 1 || b.MaxCPU != 50 || b.MeanCPU != 40 {
		t.Errorf("black row %+v", b)
	}
	var sb strings.Builder
	if err := WriteTable(&sb, rows); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| x | white | 2-0-0 | 1.000", "| 2 (1) |", "| x | black | 1-1-0 | 0.750", "| 3 (2) | 1 / 0 | 40.0 / 50.0 | 80.0 / 90.0 |", "As White: 2-0-0, score 1.000.", "As Black: 1-1-0, score 0.750."} {
		if !strings.Contains(sb.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, sb.String())
		}
	}
	if strings.Contains(sb.String(), "ended 0-0") {
		t.Errorf("a table without final scores has a 0-0 column:\n%s", sb.String())
	}
	// A bench of one colour has no row for the other.
	m.Games = m.Games[:2]
	m.AsBlack, m.DistinctAsBlack = refbench.Score{}, 0
	if rows := Rows([]refbench.Match{m}); len(rows) != 1 || rows[0].Colour != "white" {
		t.Errorf("white games only: rows %+v", rows)
	}
}

// TestTableZeroZero checks the Squatter column: games ending 0-0 among the
// games with a final score, per row.
func TestTableZeroZero(t *testing.T) {
	g := func(colour string, out refbench.Outcome, score *[2]int) refbench.Game {
		return refbench.Game{Opponent: "s", AgentColour: colour, Outcome: out, FinalScore: score}
	}
	m := refbench.Match{Opponent: "s", AsWhite: refbench.Score{Wins: 1, Draws: 1}, AsBlack: refbench.Score{Draws: 2, Losses: 1},
		Games: []refbench.Game{
			g("white", refbench.Win, &[2]int{3, 0}), g("white", refbench.Draw, &[2]int{0, 0}),
			g("black", refbench.Draw, &[2]int{0, 0}), g("black", refbench.Draw, &[2]int{2, 2}), g("black", refbench.Failed, nil),
		}}
	rows := Rows([]refbench.Match{m})
	if w, b := rows[0], rows[1]; w.Scored != 2 || w.ZeroZero != 1 || b.Scored != 2 || b.ZeroZero != 1 {
		t.Errorf("rows %+v, %+v; want 1 of 2 scored games 0-0 in each", w, b)
	}
	var sb strings.Builder
	if err := WriteTable(&sb, rows); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| ended 0-0 (of scored) |", "| 0 | 1 (2) |\n| s | black |"} {
		if !strings.Contains(sb.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, sb.String())
		}
	}
}

func TestOpponents(t *testing.T) {
	dir := t.TempDir()
	m := Manifest{Version: Version, Agents: []Agent{
		{Name: "a", Game: WYB, Repo: "o/a", Commit: strings.Repeat("a", 40), Files: []string{"."}, Module: "player", Root: "src", Env: []string{"K=V"}, Runs: true, Why: "plays"},
		{Name: "b", Game: WYB, Repo: "o/b", Commit: strings.Repeat("b", 40), Files: []string{"."}, Module: "player", Runs: false, Why: "fails"},
		{Name: "c", Game: WYB, Repo: "o/c", Commit: strings.Repeat("c", 40), Files: []string{"."}, Module: "player", Runs: true, Why: "plays"},
	}}
	cfg := Config{Game: WYB, Dir: dir, Styles: []string{"centre", "locker:depth=2", "trader:opening=5"}, Opening: 2}
	if _, err := Opponents(context.Background(), m, cfg); err == nil || !strings.Contains(err.Error(), "not extracted") {
		t.Errorf("agents not extracted: %v", err)
	}
	for _, name := range []string{"a", "c"} {
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name, stampName), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opps, err := Opponents(context.Background(), m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range opps {
		names = append(names, o.Name())
	}
	want := "a (o/a)|c (o/c)|centre:opening=2|locker:depth=2,opening=2|trader:opening=5"
	if got := strings.Join(names, "|"); got != want {
		t.Errorf("opponents %s, want %s", got, want)
	}
	if a := opps[0]; a.Module != "player" || a.Root != filepath.Join(dir, "a", "src") || len(a.Env) != 1 {
		t.Errorf("agent a: %+v", a)
	}
	cfg.Only = []string{"c", "trader"}
	opps, err = Opponents(context.Background(), m, cfg)
	if err != nil || len(opps) != 2 || opps[0].Label != "c (o/c)" || opps[1].Spec != "trader:opening=5" {
		t.Errorf("only c and trader: %+v, %v", opps, err)
	}
	cfg.Only = []string{"nobody"}
	if _, err := Opponents(context.Background(), m, cfg); err == nil {
		t.Error("no opponents: no error")
	}
}

// TestOpponentsJavaClasses checks that a Java agent plays only from the
// user's compiled classes: left out (and named by MissingClasses) without
// them, played from its subfolder with them.
func TestOpponentsJavaClasses(t *testing.T) {
	dir, classes := t.TempDir(), t.TempDir()
	m := Manifest{Version: Version, Agents: []Agent{
		{Name: "j", Game: Squatter, Repo: "o/j", Commit: strings.Repeat("d", 40), Files: []string{"."}, Class: "p.Player", Sources: []string{"p/Player.java"}, Runs: true, Why: "plays"},
	}}
	if err := os.MkdirAll(filepath.Join(dir, "j"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "j", stampName), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Game: Squatter, Dir: dir, Classes: classes, Styles: []string{"blocker"}}
	opps, err := Opponents(context.Background(), m, cfg)
	if err != nil || len(opps) != 1 || opps[0].Spec != "blocker" {
		t.Errorf("without classes: %+v, %v; want the style alone", opps, err)
	}
	if got := MissingClasses(m, cfg); len(got) != 1 || got[0] != "j" {
		t.Errorf("MissingClasses = %v, want [j]", got)
	}
	if err := os.MkdirAll(filepath.Join(classes, "j", "p"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(classes, "j", "p", "Player.class"), []byte{0xca, 0xfe}, 0o644); err != nil {
		t.Fatal(err)
	}
	opps, err = Opponents(context.Background(), m, cfg)
	if err != nil || len(opps) != 2 || opps[0].Class != "p.Player" || opps[0].ClassPath != filepath.Join(classes, "j") {
		t.Errorf("with classes: %+v, %v", opps, err)
	}
	if got := MissingClasses(m, cfg); len(got) != 0 {
		t.Errorf("MissingClasses = %v, want none", got)
	}
}
