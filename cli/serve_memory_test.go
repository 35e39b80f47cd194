package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/env/wyb"
)

// TestServeMemory starts the play-only build's "zerokit serve" with the
// shipped agent and its defaults (the tree's budget, the memory limit) but
// a short move time, plays it as Black through the referee protocol
// against alpha-beta until the game ends or the agent has made 70 moves,
// and checks the process's peak resident memory (VmHWM), as the Python
// adapter counts it, against 80 MB. agent/neural's TestMemoryBounded checks
// the Go heap through a locked game and the exact search's window.
func TestServeMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds zerokit and plays a game")
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc: cannot read a process's peak memory")
	}
	bin := buildNonetZerokit(t)
	cmd := exec.Command(bin, "serve", "-agent", "default:time=250ms")
	cmd.Env = append(os.Environ(), "GOMEMLIMIT=") // serve's own default
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		cmd.Wait()
	}()
	out := bufio.NewReader(stdout)
	ask := func(req string) string {
		t.Helper()
		if _, err := io.WriteString(stdin, req+"\n"); err != nil {
			t.Fatalf("%s: %v\n%s", req, err, stderr.String())
		}
		line, err := out.ReadString('\n')
		if err != nil {
			t.Fatalf("%s: %v\n%s", req, err, stderr.String())
		}
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "error") {
			t.Fatalf("%s: %s", req, line)
		}
		return line
	}
	game := wyb.New(wyb.Options{})
	h, err := agent.Evaluation(game)
	if err != nil {
		t.Fatal(err)
	}
	opp, err := agent.NewAlphaBeta(game, h, agent.AlphaBetaConfig{Depth: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var codec wyb.Codec
	ask("init black")
	st := game.NewInitialState().(*wyb.State)
	for moves := 0; !st.IsTerminal() && moves < 70; {
		if st.CurrentPlayer() == wyb.BlackPlayer {
			reply := ask(fmt.Sprintf("action %d", codec.Turns(st)))
			a, err := st.RefereeAction([]byte(reply))
			if err != nil {
				t.Fatalf("the agent's action %s: %v", reply, err)
			}
			if err := st.ApplyAction(a); err != nil {
				t.Fatalf("the agent's action %s: %v", reply, err)
			}
			moves++
			continue
		}
		a, err := opp.Act(context.Background(), st)
		if err != nil {
			t.Fatal(err)
		}
		text, err := codec.FormatAction(st, a)
		if err != nil {
			t.Fatal(err)
		}
		ask("update " + text)
		if err := st.ApplyAction(a); err != nil {
			t.Fatal(err)
		}
	}
	hwm, err := procPeakKB(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("peak resident memory %.1f MB after %d actions:\n%s", float64(hwm)/1024, st.MoveNumber(), st)
	if hwm > 80*1024 {
		t.Errorf("zerokit serve's peak resident memory %.1f MB, over 80 MB", float64(hwm)/1024)
	}
	ask("quit")
}

// procPeakKB reads the peak resident memory (VmHWM) of process pid, in kB
// (1024 bytes), as the Python adapter does.
func procPeakKB(pid int) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
		}
	}
	return 0, fmt.Errorf("no VmHWM in /proc/%d/status", pid)
}
