package elo

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"gonum.org/v1/gonum/mat"
)

// Pairing is the result of games between two players, from A's side.
type Pairing struct {
	A, B                string
	WinsA, Draws, WinsB int
}

// FitConfig configures Fit.
type FitConfig struct {
	// Anchor is the player whose rating is fixed at AnchorElo. Empty means
	// "random" if such a player exists, else the first player named.
	Anchor    string
	AnchorElo float64
	// PriorDraws adds this many virtual draws to every pair of players
	// that met. It keeps ratings finite when a player won or lost all its
	// games (the maximum-likelihood estimate is then infinite), at the
	// cost of pulling ratings slightly together. 0 gives the plain
	// maximum-likelihood estimate, and Fit fails when it does not exist.
	PriorDraws float64
	// MaxIter bounds the iterations (0: 100000); Tol is the convergence
	// threshold on the largest change of a log-strength (0: 1e-10).
	MaxIter int
	Tol     float64
}

// Rating is one player's fitted rating.
type Rating struct {
	Name string `json:"name"`
	// Elo is the rating relative to the anchor.
	Elo float64 `json:"elo"`
	// SE is the standard error of Elo (of its difference to the anchor).
	SE float64 `json:"se"`
	// Lo and Hi bound the 95% interval Elo ± Z95·SE.
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
	// Games, Wins, Draws and Losses count real (not virtual) games.
	Games  int `json:"games"`
	Wins   int `json:"wins"`
	Draws  int `json:"draws"`
	Losses int `json:"losses"`
	// Score is the mean real score.
	Score float64 `json:"score"`
}

// Table is the result of Fit, ratings sorted from strongest.
type Table struct {
	Anchor     string   `json:"anchor"`
	AnchorElo  float64  `json:"anchor_elo"`
	PriorDraws float64  `json:"prior_draws"`
	Iterations int      `json:"iterations"`
	Ratings    []Rating `json:"ratings"`
}

// Fit finds the maximum-likelihood Elo ratings under the Bradley-Terry
// model, P(i beats j) = 1/(1+10^((R_j-R_i)/400)), with each draw counted as
// half a win for both sides, using Hunter's MM algorithm. Standard errors
// come from the inverse Fisher information with the anchor held fixed; they
// treat every game as a win/loss trial, which overstates the variance of
// drawn games, so with draws the intervals are conservative.
//
// Fit fails if the players are not all connected by games, or (with
// PriorDraws 0) if some group of players scored nothing or everything
// against the others, where the estimate is infinite.
func Fit(pairings []Pairing, cfg FitConfig) (Table, error) {
	if cfg.PriorDraws < 0 || math.IsNaN(cfg.PriorDraws) {
		return Table{}, fmt.Errorf("elo: negative prior draws %v", cfg.PriorDraws)
	}
	maxIter, tol := cfg.MaxIter, cfg.Tol
	if maxIter <= 0 {
		maxIter = 100000
	}
	if tol <= 0 {
		tol = 1e-10
	}

	// Index the players in order of first appearance.
	index := map[string]int{}
	var names []string
	add := func(name string) (int, error) {
		if name == "" {
			return 0, errors.New("elo: pairing with an empty player name")
		}
		i, ok := index[name]
		if !ok {
			i = len(names)
			index[name] = i
			names = append(names, name)
		}
		return i, nil
	}
	for k, p := range pairings {
		if p.WinsA < 0 || p.Draws < 0 || p.WinsB < 0 {
			return Table{}, fmt.Errorf("elo: pairing %d (%s vs %s) has a negative count", k, p.A, p.B)
		}
		if p.A == p.B {
			return Table{}, fmt.Errorf("elo: pairing %d plays %s against itself", k, p.A)
		}
		if _, err := add(p.A); err != nil {
			return Table{}, err
		}
		if _, err := add(p.B); err != nil {
			return Table{}, err
		}
	}
	n := len(names)
	if n < 2 {
		return Table{}, errors.New("elo: need games between at least two players")
	}
	anchor := cfg.Anchor
	if anchor == "" {
		anchor = names[0]
		if _, ok := index["random"]; ok {
			anchor = "random"
		}
	}
	ai, ok := index[anchor]
	if !ok {
		return Table{}, fmt.Errorf("elo: anchor %q played no games", anchor)
	}

	// games[i][j] counts games (real plus virtual) between i and j;
	// score[i][j] is i's score against j.
	games := make([][]float64, n)
	score := make([][]float64, n)
	for i := range games {
		games[i] = make([]float64, n)
		score[i] = make([]float64, n)
	}
	ratings := make([]Rating, n)
	for i, name := range names {
		ratings[i].Name = name
	}
	for _, p := range pairings {
		a, b := index[p.A], index[p.B]
		g := float64(p.WinsA + p.Draws + p.WinsB)
		games[a][b] += g
		games[b][a] += g
		score[a][b] += float64(p.WinsA) + float64(p.Draws)/2
		score[b][a] += float64(p.WinsB) + float64(p.Draws)/2
		ra, rb := &ratings[a], &ratings[b]
		ra.Wins += p.WinsA
		ra.Draws += p.Draws
		ra.Losses += p.WinsB
		rb.Wins += p.WinsB
		rb.Draws += p.Draws
		rb.Losses += p.WinsA
	}
	for i := range n {
		for j := range n {
			if games[i][j] > 0 && i < j && cfg.PriorDraws > 0 {
				games[i][j] += cfg.PriorDraws
				games[j][i] += cfg.PriorDraws
				score[i][j] += cfg.PriorDraws / 2
				score[j][i] += cfg.PriorDraws / 2
			}
		}
	}
	if err := checkIdentifiable(names, games, score); err != nil {
		return Table{}, err
	}

	// MM iterations on strengths gamma = exp(theta).
	total := make([]float64, n)
	for i := range n {
		for j := range n {
			total[i] += score[i][j]
		}
	}
	gamma := make([]float64, n)
	for i := range gamma {
		gamma[i] = 1
	}
	next := make([]float64, n)
	iter := 0
	for iter = 1; iter <= maxIter; iter++ {
		for i := range n {
			den := 0.0
			for j := range n {
				if games[i][j] > 0 {
					den += games[i][j] / (gamma[i] + gamma[j])
				}
			}
			next[i] = total[i] / den
		}
		// Renormalise to the anchor to keep the numbers in range.
		change := 0.0
		for i := range n {
			v := next[i] / next[ai]
			change = max(change, math.Abs(math.Log(v)-math.Log(gamma[i])))
			gamma[i] = v
		}
		if change < tol {
			break
		}
	}
	if iter > maxIter {
		return Table{}, fmt.Errorf("elo: no convergence after %d iterations", maxIter)
	}

	// Fisher information of theta with the anchor fixed.
	scale := 400 / math.Ln10
	free := make([]int, 0, n-1)
	for i := range n {
		if i != ai {
			free = append(free, i)
		}
	}
	info := mat.NewSymDense(len(free), nil)
	for fi, i := range free {
		diag := 0.0
		for j := range n {
			if games[i][j] == 0 {
				continue
			}
			p := gamma[i] / (gamma[i] + gamma[j])
			w := games[i][j] * p * (1 - p)
			diag += w
			if fj := slices.Index(free, j); fj >= 0 && fj > fi {
				info.SetSym(fi, fj, -w)
			}
		}
		info.SetSym(fi, fi, diag)
	}
	var chol mat.Cholesky
	if !chol.Factorize(info) {
		return Table{}, errors.New("elo: Fisher information is singular; ratings are not identifiable")
	}
	var cov mat.SymDense
	if err := chol.InverseTo(&cov); err != nil {
		return Table{}, fmt.Errorf("elo: inverting Fisher information: %w", err)
	}
	for i := range n {
		r := &ratings[i]
		r.Elo = cfg.AnchorElo + scale*math.Log(gamma[i])
		if fi := slices.Index(free, i); fi >= 0 {
			r.SE = scale * math.Sqrt(cov.At(fi, fi))
		}
		r.Lo, r.Hi = r.Elo-Z95*r.SE, r.Elo+Z95*r.SE
		r.Games = r.Wins + r.Draws + r.Losses
		if r.Games > 0 {
			r.Score = (float64(r.Wins) + float64(r.Draws)/2) / float64(r.Games)
		}
	}
	slices.SortStableFunc(ratings, func(x, y Rating) int {
		switch {
		case x.Elo > y.Elo:
			return -1
		case x.Elo < y.Elo:
			return 1
		}
		return strings.Compare(x.Name, y.Name)
	})
	return Table{Anchor: anchor, AnchorElo: cfg.AnchorElo, PriorDraws: cfg.PriorDraws, Iterations: iter, Ratings: ratings}, nil
}

// checkIdentifiable verifies that the maximum-likelihood estimate exists:
// the directed graph with an edge i -> j when i scored against j must be
// strongly connected (Zermelo's condition).
func checkIdentifiable(names []string, games, score [][]float64) error {
	n := len(names)
	reach := func(forward bool) []bool {
		seen := make([]bool, n)
		stack := []int{0}
		seen[0] = true
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for j := range n {
				edge := score[i][j] > 0
				if !forward {
					edge = score[j][i] > 0
				}
				if !seen[j] && edge {
					seen[j] = true
					stack = append(stack, j)
				}
			}
		}
		return seen
	}
	// Connectivity by games first, for the clearer message.
	seen := make([]bool, n)
	stack := []int{0}
	seen[0] = true
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for j := range n {
			if !seen[j] && games[i][j] > 0 {
				seen[j] = true
				stack = append(stack, j)
			}
		}
	}
	for j, ok := range seen {
		if !ok {
			return fmt.Errorf("elo: %s and %s are not connected by any chain of games", names[0], names[j])
		}
	}
	fw, bw := reach(true), reach(false)
	for j := range n {
		if !fw[j] || !bw[j] {
			return fmt.Errorf("elo: rating of %s (relative to %s) is infinite: some group of players won or lost all its games against the rest; set PriorDraws > 0", names[j], names[0])
		}
	}
	return nil
}

// WriteText writes the table in aligned columns.
func (t Table) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "player\tElo\t95%% CI\tgames\tW\tD\tL\tscore\t\n")
	for _, r := range t.Ratings {
		ci := "anchor"
		if r.Name != t.Anchor {
			ci = fmt.Sprintf("[%+.0f, %+.0f]", r.Lo, r.Hi)
		}
		fmt.Fprintf(tw, "%s\t%+.0f\t%s\t%d\t%d\t%d\t%d\t%.3f\t\n", r.Name, r.Elo, ci, r.Games, r.Wins, r.Draws, r.Losses, r.Score)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("elo: writing table: %w", err)
	}
	if t.PriorDraws > 0 {
		if _, err := fmt.Fprintf(w, "(anchor %s = %+.0f; %.3g virtual draws added per pairing)\n", t.Anchor, t.AnchorElo, t.PriorDraws); err != nil {
			return fmt.Errorf("elo: writing table: %w", err)
		}
	}
	return nil
}
