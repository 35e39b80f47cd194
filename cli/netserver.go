package cli

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/wubpp"
)

const netServerUsage = `usage: zerokit net-server [flags]

A Watch Your Back! matchmaking server in the course's network protocol
(WUBPP), for the course's unmodified client netreferee.py and for
"zerokit net-play":

  python3 netreferee.py my_player alice [KEY] --host HOST --port PORT

Clients who send the same key (or none) are paired first come, first
served (the first to arrive plays white); the server referees their game
with the course's rules, validates every action, gives each player
-game-time of thinking per game (measured from TURN to the answer) and
ends the game with ERRO on an invalid action, a timeout or a
disconnection, otherwise with OVER. Many games run at once.

Every finished game is appended to DIR/games.jsonl (one JSON object per
line: id, names, key, winner, reason, thinking seconds and the actions in
the referee's form; "zerokit replay" replays it) and counted in
DIR/results.json (wins, draws, losses and Elo per player name, replaced
atomically after each game, and rebuilt from games.jsonl at every start:
the log is the truth, and game ids go on after its largest). The table is printed on
stdout when the server stops (Ctrl-C).

With -house SPEC the server seats that agent as the opponent of every
client (or, with -house-key, of the clients sending that key), playing
with the -house-game-time budget and -house-fallback.

There is no authentication: names are whatever clients say.

Agent specs (-house):
`

// runNetServer implements "zerokit net-server".
func runNetServer(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	reg, fs, err := newAgentsFlagSet("net-server", netServerUsage, stderr)
	if err != nil {
		return err
	}
	defer reg.Close()
	listen := fs.String("listen", "127.0.0.1:7979", "TCP `HOST:PORT` to listen on (\":7979\": every interface; port 0: any free port)")
	dir := fs.String("dir", "wubpp-server", "`DIR` holding games.jsonl and results.json (created if missing)")
	gameTime := fs.Duration("game-time", wubpp.DefaultGameTime, "each player's thinking time per game, from TURN to its answer")
	replyTimeout := fs.Duration("reply-timeout", wubpp.DefaultReplyTimeout, "how long to wait for PLAY after connecting and for each OKAY")
	waitTimeout := fs.Duration("wait-timeout", time.Hour, "how long a client may wait for an opponent (0: as long as it likes)")
	maxClients := fs.Int("max-clients", wubpp.DefaultMaxClients, "connections open at once")
	maxLine := fs.Int("max-line", wubpp.DefaultMaxLine, "longest message line accepted, in bytes")
	house := fs.String("house", "", "agent `SPEC` seated as the opponent of clients (\"\": none)")
	houseKey := fs.String("house-key", "", "only clients sending this `KEY` play the house agent (\"\": every client)")
	houseName := fs.String("house-name", "", "the house agent's player name (\"\": zerokit-<spec>)")
	houseClock := addClockFlags(fs, "house-", 0, "the server's -game-time")
	verbose := fs.Bool("v", false, "log every game and every dropped client on stderr")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *gameTime <= 0 || *replyTimeout <= 0 || *waitTimeout < 0 || *maxClients <= 0 || *maxLine < 64 {
		return fmt.Errorf("-game-time, -reply-timeout and -max-clients must be positive, -wait-timeout not negative, -max-line at least 64")
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return err
	}
	games, recs, err := wubpp.OpenGameLog(filepath.Join(*dir, "games.jsonl"))
	if err != nil {
		return err
	}
	defer games.Close()
	// The log is the truth: the table is rebuilt from it, whatever a
	// crash left in results.json.
	table, err := wubpp.NewTable(filepath.Join(*dir, "results.json"), recs)
	if err != nil {
		return err
	}
	lastID := wubpp.LastID(recs)

	var logMu, recordMu sync.Mutex
	logf := func(format string, args ...any) {
		logMu.Lock()
		defer logMu.Unlock()
		fmt.Fprintf(stderr, "zerokit net-server: "+format+"\n", args...)
	}
	cfg := wubpp.ServerConfig{
		GameTime:     *gameTime,
		ReplyTimeout: *replyTimeout,
		WaitTimeout:  *waitTimeout,
		MaxClients:   *maxClients,
		MaxLine:      *maxLine,
		FirstID:      lastID,
		OnGame: func(r wubpp.Record) {
			// One game at a time, so that the table counts the games in
			// the order of the log, as a rebuild from the log does.
			recordMu.Lock()
			defer recordMu.Unlock()
			if err := games.Write(r); err != nil {
				logf("%v", err)
			}
			if err := table.Add(r); err != nil {
				logf("%v", err)
			}
		},
	}
	if *verbose {
		cfg.Logf = logf
	}
	if *house != "" {
		if *houseClock.gameTime == 0 {
			*houseClock.gameTime = *gameTime
		}
		if cfg.House, err = houseAgent(reg, *house, *houseName, *houseKey, houseClock); err != nil {
			return err
		}
	}
	srv, err := wubpp.NewServer(cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	logf("listening on %s (games so far: %d, the last numbered %d; results table rebuilt from them)", ln.Addr(), len(recs), lastID)
	err = srv.Serve(ctx, ln)
	if werr := table.WriteText(stdout); err == nil {
		err = werr
	}
	return err
}

// houseAgent builds the server's house agent from its flags.
func houseAgent(reg *agents, specText, name, key string, clock *clockFlags) (*wubpp.House, error) {
	built, pcfg, err := clock.refereeAgent(reg, "wyb", specText)
	if err != nil {
		return nil, fmt.Errorf("-house: %w", err)
	}
	if name == "" {
		name = "zerokit-" + strings.Join(strings.FieldsFunc(specText, func(r rune) bool {
			return r == ' ' || r == ',' || r == ':' || r == '=' || r == '/'
		}), "-")
		name = name[:min(len(name), wubpp.MaxWord)]
	}
	if strings.ContainsAny(name, " \t\r\n") || len(name) > wubpp.MaxWord {
		return nil, fmt.Errorf("-house-name %q: want one word of at most %d bytes", name, wubpp.MaxWord)
	}
	h := &wubpp.House{Name: name, Budget: pcfg.Budget, NewFallback: pcfg.NewFallback}
	var games atomic.Uint64 // the seed of each game's agent
	h.NewAgent = func(int) (agent.Agent, error) { return built.NewAgent(games.Add(1) - 1) }
	if key != "" {
		h.Match = func(k string) bool { return k == key }
	}
	return h, nil
}
