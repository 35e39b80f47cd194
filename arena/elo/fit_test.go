package elo

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// simulate plays games per pair of players with the given true ratings,
// drawing with probability drawRate·2·min(p, 1-p) (p the expected score)
// and otherwise deciding so that each player's expected score matches the
// Elo model.
func simulate(rng *rand.Rand, names []string, elo []float64, games int, drawRate float64) []Pairing {
	var out []Pairing
	for i := range names {
		for j := i + 1; j < len(names); j++ {
			p := ToScore(elo[i] - elo[j])
			// With draws, win probability w solves w + d/2 = p.
			d := drawRate * 2 * min(p, 1-p)
			w := p - d/2
			pr := Pairing{A: names[i], B: names[j]}
			for range games {
				u := rng.Float64()
				switch {
				case u < w:
					pr.WinsA++
				case u < w+d:
					pr.Draws++
				default:
					pr.WinsB++
				}
			}
			out = append(out, pr)
		}
	}
	return out
}

func ratingOf(t *testing.T, tab Table, name string) Rating {
	t.Helper()
	for _, r := range tab.Ratings {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no rating for %s", name)
	return Rating{}
}

func TestFitRecoversRatings(t *testing.T) {
	names := []string{"alpha", "random", "beta", "gamma", "delta"}
	truth := []float64{150, 0, 400, -100, 250}
	tests := []struct {
		name     string
		seed     uint64
		games    int
		drawRate float64
	}{
		{"no draws", 1, 300, 0},
		{"some draws", 2, 300, 0.2},
		{"many games", 3, 3000, 0.1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(tt.seed, 7))
			tab, err := Fit(simulate(rng, names, truth, tt.games, tt.drawRate), FitConfig{})
			if err != nil {
				t.Fatal(err)
			}
			if tab.Anchor != "random" {
				t.Errorf("anchor = %q, want random by default", tab.Anchor)
			}
			for i, name := range names {
				r := ratingOf(t, tab, name)
				if name == "random" {
					if r.Elo != 0 || r.SE != 0 {
						t.Errorf("anchor rating %v ± %v, want 0 ± 0", r.Elo, r.SE)
					}
					continue
				}
				if r.SE <= 0 || r.SE > 60 {
					t.Errorf("%s: SE %v implausible", name, r.SE)
				}
				// 3.5 standard errors: fails by chance with probability
				// 5e-4 per rating, and the seeds are fixed.
				if math.Abs(r.Elo-truth[i]) > 3.5*r.SE {
					t.Errorf("%s: fitted %.1f ± %.1f, true %.0f", name, r.Elo, r.SE, truth[i])
				}
			}
			for k := 1; k < len(tab.Ratings); k++ {
				if tab.Ratings[k].Elo > tab.Ratings[k-1].Elo {
					t.Errorf("table not sorted: %v", tab.Ratings)
				}
			}
		})
	}
}

func TestFitExactScores(t *testing.T) {
	// With scores exactly at their expectations the fit is the truth.
	truth := map[string]float64{"a": 0, "b": 120, "c": -300}
	const n = 1_000_000
	var ps []Pairing
	for _, pair := range [][2]string{{"a", "b"}, {"a", "c"}, {"b", "c"}} {
		p := ToScore(truth[pair[0]] - truth[pair[1]])
		wins := int(math.Round(p * n))
		ps = append(ps, Pairing{A: pair[0], B: pair[1], WinsA: wins, WinsB: n - wins})
	}
	tab, err := Fit(ps, FitConfig{Anchor: "a"})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range truth {
		if got := ratingOf(t, tab, name).Elo; math.Abs(got-want) > 0.05 {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
}

func TestFitTwoPlayers(t *testing.T) {
	// Two players: the fit is FromScore of the score, and the standard
	// error is the delta-method one, 400/ln10 / sqrt(n p (1-p)).
	tab, err := Fit([]Pairing{{A: "x", B: "y", WinsA: 60, Draws: 10, WinsB: 30}}, FitConfig{Anchor: "y", AnchorElo: 1000})
	if err != nil {
		t.Fatal(err)
	}
	x := ratingOf(t, tab, "x")
	p := 0.65
	if want := 1000 + FromScore(p); math.Abs(x.Elo-want) > 1e-6 {
		t.Errorf("Elo %v, want %v", x.Elo, want)
	}
	if want := 400 / math.Ln10 / math.Sqrt(100*p*(1-p)); math.Abs(x.SE-want) > 1e-6 {
		t.Errorf("SE %v, want %v", x.SE, want)
	}
	if x.Games != 100 || x.Wins != 60 || x.Draws != 10 || x.Losses != 30 || x.Score != p {
		t.Errorf("counts %+v", x)
	}
}

func TestFitPrior(t *testing.T) {
	ps := []Pairing{
		{A: "strong", B: "random", WinsA: 50},
		{A: "mid", B: "random", WinsA: 30, WinsB: 20},
		{A: "strong", B: "mid", WinsA: 50},
	}
	if _, err := Fit(ps, FitConfig{}); err == nil || !strings.Contains(err.Error(), "infinite") {
		t.Fatalf("clean sweep without prior: err = %v, want infinite-rating error", err)
	}
	tab, err := Fit(ps, FitConfig{PriorDraws: 1})
	if err != nil {
		t.Fatal(err)
	}
	s, m := ratingOf(t, tab, "strong"), ratingOf(t, tab, "mid")
	if !(s.Elo > m.Elo && m.Elo > 0) || math.IsInf(s.Elo, 0) || math.IsNaN(s.SE) {
		t.Errorf("ratings strong %v ± %v, mid %v", s.Elo, s.SE, m.Elo)
	}
	if s.Games != 100 || s.Wins != 100 {
		t.Errorf("virtual draws counted as games: %d", s.Games)
	}
}

func TestFitErrors(t *testing.T) {
	tests := []struct {
		name string
		ps   []Pairing
		cfg  FitConfig
		want string
	}{
		{"empty", nil, FitConfig{}, "at least two"},
		{"self", []Pairing{{A: "a", B: "a", WinsA: 1}}, FitConfig{}, "against itself"},
		{"negative", []Pairing{{A: "a", B: "b", WinsA: -1}}, FitConfig{}, "negative"},
		{"unnamed", []Pairing{{A: "", B: "b", WinsA: 1}}, FitConfig{}, "empty player"},
		{"anchor", []Pairing{{A: "a", B: "b", WinsA: 1, WinsB: 1}}, FitConfig{Anchor: "c"}, "anchor"},
		{"disconnected", []Pairing{{A: "a", B: "b", WinsA: 1, WinsB: 1}, {A: "c", B: "d", WinsA: 1, WinsB: 1}}, FitConfig{PriorDraws: 1}, "not connected"},
		{"bad prior", []Pairing{{A: "a", B: "b", WinsA: 1, WinsB: 1}}, FitConfig{PriorDraws: -1}, "prior"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Fit(tt.ps, tt.cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestTableOutput(t *testing.T) {
	tab, err := Fit([]Pairing{{A: "ab", B: "random", WinsA: 90, Draws: 4, WinsB: 6}}, FitConfig{PriorDraws: 1})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := tab.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"player", "ab", "random", "anchor", "virtual draws"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	js, err := json.Marshal(tab)
	if err != nil {
		t.Fatal(err)
	}
	var back Table
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Ratings) != 2 || back.Ratings[0].Name != "ab" || back.Ratings[0].Elo != tab.Ratings[0].Elo {
		t.Errorf("JSON round trip: %s", js)
	}
}
