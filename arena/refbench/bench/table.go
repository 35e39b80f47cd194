package bench

import (
	"bufio"
	"fmt"
	"io"

	"github.com/zerokit/zerokit/arena/refbench"
)

// Row is the bench table's line for one opponent and one colour of the
// agent.
type Row struct {
	Opponent string         `json:"opponent"`
	Colour   string         `json:"agent_colour"`
	Score    refbench.Score `json:"score"`
	// Games counts the games played, Distinct the distinct ones (move
	// sequences), Unfinished and Failed those left out of the score.
	Games, Distinct, Unfinished, Failed int
	// MeanCPU, MaxCPU, MeanPeakMB and MaxPeakMB are the agent's CPU
	// seconds and peak memory per game.
	MeanCPU, MaxCPU, MeanPeakMB, MaxPeakMB float64
	// OverLimit counts the games in which the agent exceeded a limit.
	OverLimit int
	// Scored counts the games with a final score (Squatter's, replayed),
	// and ZeroZero those of them that ended 0-0, no territory closed.
	Scored   int `json:"scored,omitempty"`
	ZeroZero int `json:"zero_zero,omitempty"`
}

// Rows makes the table's rows of matches: per opponent, the agent as
// White then as Black, leaving out a colour with no game (a bench of one
// colour, -colour).
func Rows(matches []refbench.Match) []Row {
	var rows []Row
	for _, m := range matches {
		for _, colour := range []string{"white", "black"} {
			r := Row{Opponent: m.Opponent, Colour: colour, Score: m.AsWhite, Distinct: m.DistinctAsWhite}
			if colour == "black" {
				r.Score, r.Distinct = m.AsBlack, m.DistinctAsBlack
			}
			var cpu, mem float64
			for _, g := range m.Games {
				if g.AgentColour != colour {
					continue
				}
				r.Games++
				switch g.Outcome {
				case refbench.Unfinished:
					r.Unfinished++
				case refbench.Failed:
					r.Failed++
				}
				if g.AgentOverLimit != "" {
					r.OverLimit++
				}
				if g.FinalScore != nil {
					r.Scored++
					if g.ZeroZero() {
						r.ZeroZero++
					}
				}
				cpu += g.AgentCPU
				mem += g.AgentPeakMB
				r.MaxCPU = max(r.MaxCPU, g.AgentCPU)
				r.MaxPeakMB = max(r.MaxPeakMB, g.AgentPeakMB)
			}
			if r.Games == 0 {
				continue
			}
			r.MeanCPU, r.MeanPeakMB = cpu/float64(r.Games), mem/float64(r.Games)
			rows = append(rows, r)
		}
	}
	return rows
}

// WriteTable writes the rows as one Markdown table, then the totals per
// colour. When some games have final scores (Squatter), a last column
// counts those that ended 0-0, of the games scored.
func WriteTable(w io.Writer, rows []Row) error {
	bw := bufio.NewWriter(w)
	scored := false
	for _, r := range rows {
		scored = scored || r.Scored > 0
	}
	head, rule := "", ""
	if scored {
		head, rule = " ended 0-0 (of scored) |", "---|"
	}
	fmt.Fprintln(bw, "| opponent | agent | W-D-L | score, 95% CI | games (distinct) | unfinished / failed | agent CPU s per game (mean / max) | agent peak MB (mean / max) | over a limit |"+head)
	fmt.Fprintln(bw, "|---|---|---|---|---|---|---|---|---|"+rule)
	var tot [2][3]int
	for _, r := range rows {
		s := r.Score
		fmt.Fprintf(bw, "| %s | %s | %d-%d-%d | %.3f [%.3f, %.3f] | %d (%d) | %d / %d | %.1f / %.1f | %.1f / %.1f | %d |",
			r.Opponent, r.Colour, s.Wins, s.Draws, s.Losses, s.Score, s.Low, s.High, r.Games, r.Distinct,
			r.Unfinished, r.Failed, r.MeanCPU, r.MaxCPU, r.MeanPeakMB, r.MaxPeakMB, r.OverLimit)
		if scored {
			fmt.Fprintf(bw, " %d (%d) |", r.ZeroZero, r.Scored)
		}
		fmt.Fprintln(bw)
		c := 0
		if r.Colour == "black" {
			c = 1
		}
		tot[c][0] += s.Wins
		tot[c][1] += s.Draws
		tot[c][2] += s.Losses
	}
	for c, name := range []string{"White", "Black"} {
		k := tot[c]
		if n := k[0] + k[1] + k[2]; n > 0 {
			fmt.Fprintf(bw, "\nAs %s: %d-%d-%d, score %.3f.", name, k[0], k[1], k[2], (float64(k[0])+float64(k[1])/2)/float64(n))
		}
	}
	fmt.Fprintln(bw)
	return bw.Flush()
}
