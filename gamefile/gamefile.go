// Package gamefile reads the games in the files that zerokit writes or
// reads: a run's self-play shards and pending games, the course referee's
// transcripts, and JSON lines of actions (zerokit eval -record, the
// net-server's games.jsonl, the browser front end's game files). The
// browser's replay and zerokit review read games through it.
package gamefile

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/zerokit/zerokit/data"
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/games"
	"github.com/zerokit/zerokit/selfplay/gamestore"
)

// Game is one game read from a file: its actions and what the file
// says of it.
type Game struct {
	// Game is the game's name, Label describes where it came from.
	Game  string `json:"game"`
	Label string `json:"label"`
	// Players names the players when the file does ("" otherwise).
	Players [2]string `json:"players"`
	// Result is the file's own account of the result, if any.
	Result  string `json:"result,omitempty"`
	Actions []int  `json:"actions"`
	// Values are the search's recorded root values (self-play games),
	// from the point of view of the player to move, one per action; absent
	// when the file has none.
	Values []*float32 `json:"values,omitempty"`
	// Note says what was left out: an illegal action and what followed.
	Note string `json:"note,omitempty"`
}

// MaxGames bounds the games read from one file.
const MaxGames = 10000

// Parse reads the games of a file the toolkit writes or reads:
//
//   - a self-play shard (shard-NNNNNN.zk) or pending game (game-N.zkg) of a
//     run's games directory;
//   - a referee transcript: the referee's printout of the board and its
//     progress line after each action (zerokit replay's output, the course
//     referee's output, refbench's referee.out), Watch Your Back! only;
//   - JSON lines, one game a line: an array of actions (zerokit eval
//     -record), or an object with an "actions" array (the net-server's
//     games.jsonl, and this page's own game files, which name their "game").
//
// Actions in JSON are the referee's form ([x, y], [[xa, ya], [xb, yb]],
// null), the game's notation as a string ("3,4-3,5"), or action numbers.
// gameName names the game of files that do not ("" for Watch Your Back!
// under the referee's rules) and name the file, for labels. A game with an
// illegal action keeps the actions before it, with a note.
func Parse(b []byte, gameName, name string) ([]Game, error) {
	if name == "" {
		name = "file"
	}
	if gameName == "" {
		gameName = "wyb-nolimit"
	}
	switch {
	case len(b) == 0:
		return nil, errors.New("the file is empty")
	case bytes.HasPrefix(b, []byte(data.ShardMagic)):
		return parseShard(b, name)
	case bytes.HasPrefix(b, []byte(gamestore.PendingPrefix)):
		idx, rec, err := gamestore.DecodePending(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		g, err := FromRecord(rec, fmt.Sprintf("self-play game %d", idx))
		if err != nil {
			return nil, err
		}
		return []Game{g}, nil
	case progressLine.Match(firstProgress(b)):
		return parseTranscript(b, gameName, name)
	}
	return parseJSONLines(b, gameName, name)
}

func parseShard(b []byte, name string) ([]Game, error) {
	r, err := data.NewShardReader(bytes.NewReader(b), name)
	if err != nil {
		return nil, err
	}
	var out []Game
	for r.Next() {
		if len(out) == MaxGames {
			break
		}
		g, err := FromRecord(r.Record(), fmt.Sprintf("%s game %d", name, r.Index()))
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// fromRecord converts a self-play record, checking that its game exists.
func FromRecord(rec data.Record, label string) (Game, error) {
	if err := rec.Validate(); err != nil {
		return Game{}, fmt.Errorf("%s: %w", label, err)
	}
	if _, err := games.ByName(rec.Game); err != nil {
		return Game{}, fmt.Errorf("%s: %w", label, err)
	}
	g := Game{Game: rec.Game, Label: fmt.Sprintf("%s (network step %d, seed %d)", label, rec.Meta.NetworkStep, rec.Meta.Seed),
		Actions: rec.Actions, Result: fmt.Sprintf("returns %+g / %+g", rec.Returns[0], rec.Returns[1])}
	for _, m := range rec.Moves {
		if m.HasRootValue {
			v := m.RootValue
			g.Values = append(g.Values, &v)
		} else {
			g.Values = append(g.Values, nil)
		}
	}
	return g, nil
}

// progressLine is the referee's progress line under each board.
var progressLine = regexp.MustCompile(`^(?:[0-9]+ turns into the (?:placing|moving) phase|game over!)$`)

// firstProgress returns the first line of b that looks like a progress
// line, or nil, looking at the first 64 KiB.
func firstProgress(b []byte) []byte {
	sc := bufio.NewScanner(bytes.NewReader(b[:min(len(b), 64<<10)]))
	for sc.Scan() {
		if l := bytes.TrimRight(sc.Bytes(), " \r"); progressLine.Match(l) {
			return l
		}
	}
	return nil
}

// boardRow reports whether line is a row of the referee's board: symbols
// from "X-O@ " at even columns, spaces between them.
func boardRow(line string, width int) bool {
	if len(line) > 2*width-1 {
		return false
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		if i%2 == 1 && c != ' ' || i%2 == 0 && !strings.ContainsRune("X-O@ ", rune(c)) {
			return false
		}
	}
	return true
}

// parseTranscript reconstructs games from the referee's printouts: each
// board with its progress line is the position after one action, found
// by trying every legal action.
func parseTranscript(b []byte, gameName, name string) ([]Game, error) {
	bd, err := games.ByName(gameName)
	if err != nil {
		return nil, err
	}
	grid, ok := bd.(env.Grid)
	if !ok {
		return nil, fmt.Errorf("%s: game %s is not played on a grid: it has no referee's boards", name, bd.Name())
	}
	w, h := grid.GridSize()
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines = append(lines, strings.TrimRight(sc.Text(), " \r"))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var out []Game
	var cur *Game
	var st env.State
	finish := func() {
		if cur != nil && (len(cur.Actions) > 0 || cur.Note != "") {
			out = append(out, *cur)
		}
		cur = nil
	}
	start := func(line int) {
		finish()
		cur = &Game{Game: bd.Name(), Label: fmt.Sprintf("%s game %d (from line %d)", name, len(out), line+1), Actions: []int{}}
		st = bd.NewInitialState()
	}
	for i, l := range lines {
		if strings.HasPrefix(l, "=== game") {
			start(i)
			continue
		}
		if !progressLine.MatchString(l) || i < h {
			continue
		}
		rows := lines[i-h : i]
		ok := true
		for _, r := range rows {
			ok = ok && boardRow(r, w)
		}
		if !ok {
			continue
		}
		text := strings.Join(rows, "\n") + "\n" + l
		if cur == nil || (cur.Note == "" && text == referee(bd.NewInitialState()) && st.MoveNumber() > 0) {
			start(i - h)
		}
		if cur.Note != "" || text == referee(st) {
			continue // a repeated printout, or after an unreadable one
		}
		a, found := findAction(st, text)
		if !found {
			cur.Note = fmt.Sprintf("the board at line %d does not follow from the one before by a legal action; the replay stops there", i-h+1)
			continue
		}
		if err := st.ApplyAction(a); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", name, i+1, err)
		}
		cur.Actions = append(cur.Actions, a)
	}
	finish()
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no game found: the referee's boards are %d lines followed by a progress line such as \"3 turns into the placing phase\"", name, h)
	}
	return out, nil
}

// referee is the referee's printout of s: its board and progress line,
// trailing blanks removed.
func referee(s env.State) string {
	text := s.String()
	if p, ok := s.(interface{ Progress() string }); ok {
		text += "\n" + p.Progress()
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// findAction returns the legal action of s that leads to the printout
// text.
func findAction(s env.State, text string) (int, bool) {
	for _, a := range s.LegalActions(nil) {
		next := s.Clone()
		if next.ApplyAction(a) == nil && referee(next) == text {
			return a, true
		}
	}
	return 0, false
}

// jsonGame is a JSON line holding a game as an object.
type jsonGame struct {
	Game    string             `json:"game"`
	Actions *[]json.RawMessage `json:"actions"`
	White   string             `json:"white"`
	Black   string             `json:"black"`
	Winner  string             `json:"winner"`
	Reason  string             `json:"reason"`
	ID      *uint64            `json:"id"`
}

func parseJSONLines(b []byte, gameName, name string) ([]Game, error) {
	var out []Game
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 16<<20)
	for lineNo := 1; sc.Scan(); lineNo++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if len(out) == MaxGames {
			break
		}
		g, err := parseJSONGame(line, gameName, fmt.Sprintf("%s line %d", name, lineNo))
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", name, lineNo, err)
		}
		out = append(out, g)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no game found (want JSON lines, a referee transcript or a self-play shard)", name)
	}
	return out, nil
}

func parseJSONGame(line []byte, gameName, label string) (Game, error) {
	var raw []json.RawMessage
	g := Game{Game: gameName, Label: label}
	switch line[0] {
	case '[':
		if err := json.Unmarshal(line, &raw); err != nil {
			return g, fmt.Errorf("malformed JSON array of actions: %w", err)
		}
	case '{':
		var j jsonGame
		if err := json.Unmarshal(line, &j); err != nil {
			return g, fmt.Errorf("malformed JSON game record: %w", err)
		}
		if j.Actions == nil {
			return g, errors.New("JSON game record without \"actions\"")
		}
		raw = *j.Actions
		if j.Game != "" {
			g.Game = j.Game
		}
		g.Players = [2]string{j.White, j.Black}
		if j.Winner != "" {
			g.Result = j.Winner
			if j.Reason != "" {
				g.Result += " (" + j.Reason + ")"
			}
		}
		if j.ID != nil {
			g.Label = fmt.Sprintf("%s: game %d", label, *j.ID)
		}
		if j.White != "" || j.Black != "" {
			g.Label += ": " + j.White + " v " + j.Black
		}
	default:
		return g, fmt.Errorf("not a game: want a JSON array of actions or an object with \"actions\" (starts with %q)", truncate(line, 20))
	}
	bd, err := games.ByName(g.Game)
	if err != nil {
		return g, err
	}
	var codec env.RefereeCodec
	if r, ok := bd.(env.Refereed); ok {
		_, codec = r.Referee()
	}
	s := bd.NewInitialState()
	g.Actions = []int{}
	for i, r := range raw {
		a, err := parseJSONAction(s, codec, r)
		if err == nil && s.IsTerminal() {
			err = errors.New("the game is already over")
		}
		if err == nil {
			err = s.ApplyAction(a)
		}
		if err != nil {
			g.Note = fmt.Sprintf("action %d (%s) is illegal: %v; the replay stops before it", i, truncate(r, 40), err)
			break
		}
		g.Actions = append(g.Actions, a)
	}
	return g, nil
}

// parseJSONAction reads one action: a number is an action index, a string
// the game's notation, anything else the referee's form.
func parseJSONAction(s env.State, codec env.RefereeCodec, r json.RawMessage) (int, error) {
	r = bytes.TrimSpace(r)
	if len(r) == 0 {
		return 0, errors.New("empty action")
	}
	switch c := r[0]; {
	case c == '"':
		var text string
		if err := json.Unmarshal(r, &text); err != nil {
			return 0, err
		}
		return s.ParseAction(text)
	case c == '-' || c >= '0' && c <= '9':
		var a int
		if err := json.Unmarshal(r, &a); err != nil {
			return 0, fmt.Errorf("action number: %w", err)
		}
		return a, nil
	case codec != nil:
		return codec.ParseAction(s, string(r))
	}
	return 0, errors.New("not an action number or a notation string")
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}
