package wubpp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"sync"

	"github.com/zerokit/zerokit/arena/elo"
	"github.com/zerokit/zerokit/internal/atomicfile"
)

// Elo settings of the results table.
const (
	// InitialElo is a new player's rating.
	InitialElo = 1500
	// EloK is the Elo update factor: after each game a player's rating
	// moves by EloK times (score - expected score).
	EloK = 32
)

// Standing is one player's line of the results table.
type Standing struct {
	Name   string  `json:"name"`
	Wins   int     `json:"wins"`
	Draws  int     `json:"draws"`
	Losses int     `json:"losses"`
	Elo    float64 `json:"elo"`
}

// Games is the number of games counted for the player.
func (s Standing) Games() int { return s.Wins + s.Draws + s.Losses }

// tableFile is the results file's JSON form.
type tableFile struct {
	Games   int        `json:"games"`
	Players []Standing `json:"players"`
}

// Table is the results table of a server: wins, draws, losses and an Elo
// rating per player name, updated after every finished game (incremental
// Elo: InitialElo, factor EloK) and saved to a JSON file by an atomic
// replace (a temporary file renamed over it), so that a server killed at
// any moment leaves the previous or the new table, never a broken one.
// Games a player plays against its own name, and games abandoned by the
// server, are not counted. A Table is safe for concurrent use.
type Table struct {
	path string

	mu      sync.Mutex
	games   int
	players map[string]*Standing
}

// NewTable counts games, in order, into a new table and saves it at path
// (an empty path keeps the table in memory only). A server rebuilds its
// table from its games log this way on every start, so that the table
// agrees with the log whatever a crash interrupted: the log is the truth.
func NewTable(path string, games []Record) (*Table, error) {
	t := &Table{path: path, players: map[string]*Standing{}}
	for _, r := range games {
		t.count(r)
	}
	if err := t.save(); err != nil {
		return nil, err
	}
	return t, nil
}

func (t *Table) player(name string) *Standing {
	s := t.players[name]
	if s == nil {
		s = &Standing{Name: name, Elo: InitialElo}
		t.players[name] = s
	}
	return s
}

// Add counts a finished game and saves the table. Abandoned games (no
// winner) and games against oneself change nothing.
func (t *Table) Add(r Record) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.count(r) {
		return nil
	}
	return t.save()
}

// count counts r and reports whether it changed the table.
func (t *Table) count(r Record) bool {
	if r.Winner == "" || r.White == r.Black {
		return false
	}
	w, b := t.player(r.White), t.player(r.Black)
	score := 0.5 // white's
	switch r.Winner {
	case White:
		score = 1
		w.Wins++
		b.Losses++
	case Black:
		score = 0
		w.Losses++
		b.Wins++
	default:
		w.Draws++
		b.Draws++
	}
	delta := EloK * (score - elo.ToScore(w.Elo-b.Elo))
	w.Elo += delta
	b.Elo -= delta
	t.games++
	return true
}

// Standings returns the players from the highest rating down (then by
// name).
func (t *Table) Standings() []Standing {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.standings()
}

func (t *Table) standings() []Standing {
	out := make([]Standing, 0, len(t.players))
	for _, s := range t.players {
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Elo != out[j].Elo {
			return out[i].Elo > out[j].Elo
		}
		return out[i].Name < out[j].Name
	})
	return out
}

func (t *Table) save() error {
	if t.path == "" {
		return nil
	}
	b, err := json.MarshalIndent(tableFile{Games: t.games, Players: t.standings()}, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(t.path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("wubpp: saving results table: %w", err)
	}
	return nil
}

// WriteText writes the table in aligned columns: rank, name, games, W-D-L,
// score and Elo.
func (t *Table) WriteText(w io.Writer) error {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "%4s  %-20s %6s %14s %6s %6s\n", "rank", "player", "games", "W-D-L", "score", "Elo")
	for i, s := range t.Standings() {
		score := 0.0
		if n := s.Games(); n > 0 {
			score = (float64(s.Wins) + float64(s.Draws)/2) / float64(n)
		}
		fmt.Fprintf(&buf, "%4d  %-20s %6d %14s %5.1f%% %6.0f\n", i+1, s.Name, s.Games(),
			fmt.Sprintf("%d-%d-%d", s.Wins, s.Draws, s.Losses), 100*score, s.Elo)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// GameLog appends game records to a file, one JSON line per game (see
// Record), which "zerokit replay" replays. A GameLog is safe for
// concurrent use.
type GameLog struct {
	mu sync.Mutex
	f  *os.File
}

// OpenGameLog opens (or creates) the log at path for appending and
// returns it with the records it holds, in order, without their actions,
// start times and thinking times (a table and the numbering of further
// games need only ids, names and results; a long log's actions would fill
// memory). A last line cut short by a crash is removed first; any other
// line that is not a valid record is an error naming it, and the file is
// left as it is.
func OpenGameLog(path string) (*GameLog, []Record, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("wubpp: opening game log: %w", err)
	}
	recs, end, err := readRecords(f)
	if err == nil {
		err = f.Truncate(end)
	}
	if err == nil {
		_, err = f.Seek(end, io.SeekStart)
	}
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("wubpp: game log %s: %w", path, err)
	}
	return &GameLog{f: f}, recs, nil
}

// readRecords reads the complete lines of r as records and returns them
// with the offset after the last one.
func readRecords(r io.Reader) (recs []Record, end int64, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		b, err := br.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			return recs, end, nil // b, if any, is a line cut short
		}
		if err != nil {
			return nil, 0, err
		}
		rec, err := parseRecord(b)
		if err != nil {
			return nil, 0, fmt.Errorf("line %d: %w", n, err)
		}
		recs = append(recs, rec)
		end += int64(len(b))
	}
}

// parseRecord reads one line of a games log, without its actions and
// times.
func parseRecord(b []byte) (Record, error) {
	var head struct {
		ID     uint64 `json:"id"`
		White  string `json:"white"`
		Black  string `json:"black"`
		Key    string `json:"key"`
		Winner string `json:"winner"`
		Reason string `json:"reason"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return Record{}, fmt.Errorf("not a game record: %w", err)
	}
	r := Record{ID: head.ID, White: head.White, Black: head.Black, Key: head.Key, Winner: head.Winner, Reason: head.Reason}
	switch {
	case r.ID == 0:
		return Record{}, errors.New("game record without an id")
	case r.White == "" || r.Black == "":
		return Record{}, fmt.Errorf("game %d: a player without a name", r.ID)
	case r.Winner != White && r.Winner != Black && r.Winner != Draw && r.Winner != "":
		return Record{}, fmt.Errorf("game %d: winner %q, want %s, %s, %s or \"\" (abandoned)", r.ID, r.Winner, White, Black, Draw)
	}
	return r, nil
}

// LastID is the largest game id of recs (0 for none). A server numbers
// its next games after it: games end out of order, so after a crash the
// log may lack some ids below it, which are not reused.
func LastID(recs []Record) uint64 {
	var id uint64
	for _, r := range recs {
		id = max(id, r.ID)
	}
	return id
}

// Write appends one record as a line and syncs the file.
func (l *GameLog) Write(r Record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("wubpp: encoding game %d: %w", r.ID, err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("wubpp: writing game %d: %w", r.ID, err)
	}
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("wubpp: writing game %d: %w", r.ID, err)
	}
	return nil
}

// Close closes the file.
func (l *GameLog) Close() error { return l.f.Close() }
